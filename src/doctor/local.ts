/**
 * The checks of `tandem doctor` that need nothing but this machine: $TANDEM_HOME (made 0700 when
 * missing), the Node version against package.json's `engines`, bubblewrap (found as the sandbox
 * finds it, then run once), and where the API key would come from. Each returns a Check and
 * never throws; none prints a secret.
 */
import { existsSync, mkdirSync, readFileSync, statSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import type { ResolvedProvider } from "../config/load.js";
import type { Settings } from "../config/schema.js";
import { runHost } from "../host/run.js";
import { credentialsFile, loadApiKey } from "../runtime/credentials.js";
import { findBwrap } from "../tools/exec/sandbox.js";
import type { Check } from "./types.js";

/** $TANDEM_HOME: created (0700) when missing; a directory others can read is a warning. */
export function checkHome(home: string): Check {
  const name = "home";
  try {
    if (!existsSync(home)) {
      mkdirSync(home, { recursive: true, mode: 0o700 });
      return { name, status: "ok", found: `created ${home} (mode 0700)` };
    }
    const st = statSync(home);
    if (!st.isDirectory())
      return {
        name,
        status: "fail",
        found: `${home} is not a directory`,
        fix: "move it away, or set TANDEM_HOME to a directory",
      };
    if (st.mode & 0o077)
      return {
        name,
        status: "warn",
        found: `${home} is readable by others (mode ${(st.mode & 0o777).toString(8)})`,
        fix: `chmod 700 ${home}`,
      };
    return { name, status: "ok", found: home };
  } catch (err) {
    return {
      name,
      status: "fail",
      found: `cannot create ${home}: ${(err as Error).message}`,
      fix: "set TANDEM_HOME to a writable directory",
    };
  }
}

/** package.json's `engines.node` (from the installed package: dist/ or src/doctor/ below it). */
function nodeEngine(): string | undefined {
  let dir = dirname(fileURLToPath(import.meta.url));
  for (let i = 0; i < 4; i++, dir = dirname(dir)) {
    try {
      const pkg = JSON.parse(readFileSync(join(dir, "package.json"), "utf8"));
      if (pkg.name === "tandem") return pkg.engines?.node;
    } catch {}
  }
  return undefined;
}

/** The running Node against `>=N[.M]` (the only form package.json uses). */
export function checkNode(version = process.versions.node, engine = nodeEngine()): Check {
  const name = "node";
  const want = /^>=\s*(\d+)(?:\.(\d+))?/.exec(engine ?? "");
  if (!want)
    return {
      name,
      status: "warn",
      found: `v${version}; package.json engines.node not readable (${engine ?? "absent"})`,
    };
  const [major, minor] = version.split(".").map(Number);
  const ok = major > Number(want[1]) || (major === Number(want[1]) && minor >= Number(want[2] ?? 0));
  if (ok) return { name, status: "ok", found: `v${version} (package.json wants ${engine})` };
  return {
    name,
    status: "fail",
    found: `v${version}, but Tandem needs ${engine}`,
    fix: `install Node ${want[1]} or newer (https://nodejs.org, or your distribution's nodejs package)`,
  };
}

/** The install command for bubblewrap on this distribution (from /etc/os-release). */
export function bwrapInstallHint(osRelease = readOsRelease()): string {
  const ids =
    `${/^ID=(.*)$/m.exec(osRelease)?.[1] ?? ""} ${/^ID_LIKE=(.*)$/m.exec(osRelease)?.[1] ?? ""}`.replace(
      /"/g,
      "",
    );
  if (/\b(fedora|rhel|centos)\b/.test(ids)) return "dnf install -y bubblewrap";
  if (/\barch\b/.test(ids)) return "pacman -S bubblewrap";
  if (/\balpine\b/.test(ids)) return "apk add bubblewrap";
  if (/\b(suse|opensuse)\b/.test(ids)) return "zypper install bubblewrap";
  return "apt-get install -y bubblewrap";
}

function readOsRelease(): string {
  try {
    return readFileSync("/etc/os-release", "utf8");
  } catch {
    return "";
  }
}

/**
 * bubblewrap on a trusted PATH entry (tools/exec/sandbox.ts `findBwrap`), then one real run of
 * `bwrap … /bin/true` with a user namespace, as the sandbox needs. Missing or broken is a failure
 * unless the configured sandbox is danger-full-access (then commands never use it: a warning).
 */
export async function checkBwrap(settings: Settings, path = process.env.PATH ?? ""): Promise<Check> {
  const name = "bwrap";
  const needed = settings.sandbox_mode !== "danger-full-access";
  const status = needed ? "fail" : "warn";
  const bwrap = findBwrap(path);
  const install = bwrapInstallHint();
  if (!bwrap)
    return {
      name,
      status,
      found: `bubblewrap (bwrap) is not installed on a trusted PATH entry, so the ${settings.sandbox_mode} sandbox cannot run commands`,
      fix: `${install} (or, without a sandbox: sandbox_mode = "danger-full-access" in config.toml)`,
    };
  const r = await runHost(bwrap, {
    args: ["--unshare-user", "--ro-bind", "/", "/", "--dev", "/dev", "--proc", "/proc", "--", "/bin/true"],
    cwd: "/",
    env: { PATH: "/usr/bin:/bin" },
    timeoutMs: 5000,
    maxOutputBytes: 4096,
  });
  if (r.code === 0) return { name, status: "ok", found: `${bwrap} works` };
  const why = (r.error?.message ?? r.stderr.trim()) || `exit ${r.code ?? r.signal}`;
  return {
    name,
    status,
    found: `${bwrap} is installed but cannot make a sandbox: ${why}`,
    fix: "allow unprivileged user namespaces (sysctl kernel.unprivileged_userns_clone=1; in a container: run it with user namespaces allowed)",
  };
}

/** Where the API key would come from: the provider's variable, else `tandem login`. */
export function checkApiKey(home: string, provider: ResolvedProvider, env = process.env): Check {
  const name = "api-key";
  const fix = `export ${provider.envKey}=… or run \`tandem login\``;
  if (env[provider.envKey])
    return { name, status: "ok", found: `${provider.envKey} is set (provider "${provider.id}")` };
  if (env.CODEX_API_KEY && provider.apiKey === env.CODEX_API_KEY)
    return { name, status: "ok", found: `CODEX_API_KEY is set (provider "${provider.id}")` };
  try {
    if (loadApiKey(home, provider.id))
      return {
        name,
        status: "ok",
        found: `stored by \`tandem login\` in ${credentialsFile(home)} (provider "${provider.id}")`,
      };
  } catch (err) {
    return { name, status: "fail", found: (err as Error).message, fix };
  }
  return {
    name,
    status: "fail",
    found: `no API key: ${provider.envKey} is not set and \`tandem login\` stored none for "${provider.id}"`,
    fix,
  };
}
