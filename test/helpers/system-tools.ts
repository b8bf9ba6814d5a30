/**
 * One skip policy for tests that need a system tool (bubblewrap, tmux, chromium).
 *
 * - `missing(...tools)` says which of the tools this machine lacks; a suite that needs them
 *   runs `describe.skipIf(missing("tmux").length > 0)`. Detection runs each tool once.
 * - `TANDEM_TEST_HIDE_TOOLS=bwrap,tmux` pretends those tools are absent (to try the fresh-machine
 *   path on a machine that has them).
 * - `TANDEM_REQUIRE_TOOLS=1` (set by `.ci/run`, which installs every tool) makes a missing tool
 *   an error instead of a skip: `missing()` throws, so the suite fails loudly, and the skip
 *   reporter (test/skip-reporter.ts) fails the run on any skipped test at all.
 * The reporter prints one summary line naming each missing tool and the command that installs it.
 */
import { spawnSync } from "node:child_process";
import {
  accessSync,
  constants,
  existsSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  statSync,
  writeFileSync,
} from "node:fs";
import { delimiter, join } from "node:path";

function onPath(name: string): boolean {
  return (process.env.PATH ?? "").split(delimiter).some((d) => {
    try {
      accessSync(join(d, name), constants.X_OK);
      return true;
    } catch {
      return false;
    }
  });
}

export const SYSTEM_TOOLS = {
  bwrap: {
    install: "apt-get install bubblewrap",
    probe: () => spawnSync("bwrap", ["--version"]).status === 0,
  },
  tmux: { install: "apt-get install tmux", probe: () => spawnSync("tmux", ["-V"]).status === 0 },
  chromium: { install: "apt-get install chromium", probe: () => onPath("chromium") },
  // Debian keeps postgres off PATH, under /usr/lib/postgresql/<version>/bin (test/helpers/infra/postgres.ts).
  postgres: {
    install: "apt-get install postgresql",
    probe: () =>
      readdirOr("/usr/lib/postgresql").some((v) => existsSync(`/usr/lib/postgresql/${v}/bin/initdb`)),
  },
  "nats-server": {
    install: "apt-get install nats-server",
    probe: () => spawnSync("nats-server", ["--version"]).status === 0,
  },
  // A C compiler for the red-team test that builds an LD_PRELOAD library (security/redteam-appserver-exec).
  gcc: { install: "apt-get install gcc", probe: () => spawnSync("gcc", ["--version"]).status === 0 },
  // TLS certificates for the cluster bus tests (test/helpers/infra/tls.ts).
  openssl: {
    install: "apt-get install openssl",
    probe: () => spawnSync("openssl", ["version"]).status === 0,
  },
} as const;

function readdirOr(dir: string): string[] {
  try {
    return readdirSync(dir);
  } catch {
    return [];
  }
}

export type SystemTool = keyof typeof SYSTEM_TOOLS;

export const REQUIRE_TOOLS = process.env.TANDEM_REQUIRE_TOOLS === "1";

const hidden = new Set((process.env.TANDEM_TEST_HIDE_TOOLS ?? "").split(",").map((s) => s.trim()));
const seen = new Map<SystemTool, boolean>();

/** True when `tool` is installed here (and not hidden by TANDEM_TEST_HIDE_TOOLS). */
export function hasTool(tool: SystemTool): boolean {
  let ok = seen.get(tool);
  if (ok === undefined) {
    ok = !hidden.has(tool) && SYSTEM_TOOLS[tool].probe();
    seen.set(tool, ok);
  }
  return ok;
}

/** The tools among `tools` that this machine lacks. Throws under TANDEM_REQUIRE_TOOLS=1. */
export function missing(...tools: SystemTool[]): SystemTool[] {
  const out = tools.filter((t) => !hasTool(t));
  if (out.length && REQUIRE_TOOLS)
    throw new Error(
      `TANDEM_REQUIRE_TOOLS=1 but ${out.join(", ")} ${out.length > 1 ? "are" : "is"} missing: ` +
        out.map((t) => SYSTEM_TOOLS[t].install).join("; "),
    );
  return out;
}

/** `bwrap missing (apt-get install bubblewrap)` for every tool this machine lacks. */
export function missingSummary(): string[] {
  return (Object.keys(SYSTEM_TOOLS) as SystemTool[])
    .filter((t) => !hasTool(t))
    .map((t) => `${t} missing (${SYSTEM_TOOLS[t].install})`);
}

/**
 * On a machine without bubblewrap, Tandem (rightly) refuses to run commands under the default
 * workspace-write sandbox. Tests that exercise the loop rather than the sandbox then run their
 * commands with full access inside their temp dirs: this writes `sandbox_mode =
 * "danger-full-access"` into `home`'s config.toml (unless it sets a sandbox already). With
 * bubblewrap present it does nothing, so CI runs every test sandboxed. Sandbox tests skip instead.
 */
export function sandboxFallback(home: string | undefined): void {
  if (!home || hasTool("bwrap")) return;
  if (existsSync(home) && !statSync(home).isDirectory()) return; // e.g. a test of a bad TANDEM_HOME
  const file = join(home, "config.toml");
  let text = "";
  try {
    text = readFileSync(file, "utf8");
  } catch {
    mkdirSync(home, { recursive: true });
  }
  if (/^\s*sandbox_mode\s*=/m.test(text)) return;
  writeFileSync(file, `sandbox_mode = "danger-full-access" # no bubblewrap on this machine\n${text}`);
}
