/**
 * `tandem doctor [--json]`: checks this machine and the configuration (src/doctor/) and prints
 * one line per check — status, what was found, what to do. Exit 0 when no check fails, 1 when
 * one does, 2 for a usage error. `--json` prints `{"ok": …, "checks": [{name, status, found, fix}]}`.
 */
import { parseArgs } from "node:util";
import { runDoctor } from "../../doctor/index.js";
import { argError } from "../../util/cli-args.js";
import { terminalText } from "../../util/terminal-text.js";

export const DOCTOR_USAGE = `Usage: tandem doctor [--json] [-c key=value] [--store TARGET]

Checks, one line each (ok / warn / fail, what was found, what to do): $TANDEM_HOME (created,
mode 0700, when missing), the Node version, config.toml, bubblewrap (installed and working), the
API key (which variable; never its value), the model server (GET <base_url>/models answers and
lists the model), the store, and each MCP server (started, tools listed). Exit 0 when nothing
fails, 1 otherwise.

Options:
  --json                    print the checks as one JSON object
  -c, --config key=value    override a config value (TOML value), repeatable
  -m, --model MODEL         the model to look for
  --store TARGET            check this store (path or postgres:// URL) instead
  -h, --help                show this help`;

export async function runDoctorCommand(argv: string[]): Promise<number> {
  let v: { json?: boolean; help?: boolean; config?: string[]; model?: string; store?: string };
  try {
    v = parseArgs({
      args: argv,
      options: {
        json: { type: "boolean" },
        help: { type: "boolean", short: "h" },
        config: { type: "string", short: "c", multiple: true },
        model: { type: "string", short: "m" },
        store: { type: "string" },
      },
    }).values;
  } catch (e) {
    process.stderr.write(`tandem doctor: ${argError(e)}\n\n${DOCTOR_USAGE}\n`);
    return 2;
  }
  if (v.help) {
    process.stdout.write(`${DOCTOR_USAGE}\n`);
    return 0;
  }
  const overrides = [...(v.config ?? [])];
  if (v.model) overrides.push(`model=${JSON.stringify(v.model)}`);
  const checks = await runDoctor({ overrides, store: v.store });
  const ok = checks.every((c) => c.status !== "fail");
  if (v.json) process.stdout.write(`${JSON.stringify({ ok, checks })}\n`);
  else {
    const width = Math.max(...checks.map((c) => c.name.length));
    for (const c of checks) {
      const fix = c.fix ? ` — fix: ${c.fix}` : "";
      process.stdout.write(
        `${c.status.padEnd(4)}  ${c.name.padEnd(width)}  ${terminalText(c.found + fix)}\n`,
      );
    }
    const failed = checks.filter((c) => c.status === "fail").length;
    process.stdout.write(ok ? "All checks passed.\n" : `${failed} check${failed > 1 ? "s" : ""} failed.\n`);
  }
  return ok ? 0 : 1;
}
