/**
 * `tandem hooks list|trust` (README "Hooks"): what hooks apply in a directory — every command
 * hook with its event, matcher, timeout, the file it came from and whether that file is trusted —
 * and trusting the project's hooks files as they are now (remembered by SHA-256; a change asks
 * again). Usage errors exit 2.
 */
import { resolve } from "node:path";
import { parseArgs } from "node:util";
import { loadConfig } from "../../config/load.js";
import { hooksIn, trustHooksIn } from "../../runtime/hooks.js";
import { argError } from "../../util/cli-args.js";
import { terminalText } from "../../util/terminal-text.js";

export const HOOKS_USAGE = `Usage: tandem hooks [list] [-C DIR] [--json]   the hooks that apply in DIR, and where they come from
       tandem hooks trust [-C DIR]           show DIR's project hooks files in full, with their sha256
       tandem hooks trust --sha256 H [-C DIR]  trust them, if what is on disk still hashes to H

Hooks come from $TANDEM_HOME/hooks.json, [hooks] tables in config.toml (yours: trusted), and the
project's .tandem/hooks.json, .codex/hooks.json and .claude/settings.json (run only once trusted).

Options:
  -C, --cd DIR              the project's directory (default: the current directory)
  --json                    print {"cwd", "root", "hooks": […], "sources": […], "warnings", "errors"}
  -c, --config key=value    override a config value (TOML value), repeatable
  -h, --help                show this help`;

export async function runHooksCommand(argv: string[]): Promise<number> {
  const err = (s: string) => process.stderr.write(`tandem hooks: ${s}\n`);
  let parsed: ReturnType<typeof parseArgs>;
  try {
    parsed = parseArgs({
      args: argv,
      allowPositionals: true,
      options: {
        cd: { type: "string", short: "C" },
        json: { type: "boolean" },
        sha256: { type: "string", multiple: true },
        config: { type: "string", short: "c", multiple: true },
        help: { type: "boolean", short: "h" },
      },
    });
  } catch (e) {
    err(argError(e));
    process.stderr.write(`${HOOKS_USAGE}\n`);
    return 2;
  }
  if (parsed.values.help) {
    process.stdout.write(`${HOOKS_USAGE}\n`);
    return 0;
  }
  const [sub = "list", ...rest] = parsed.positionals;
  if (!["list", "trust"].includes(sub) || rest.length) {
    err(`unknown arguments: ${parsed.positionals.join(" ")}`);
    process.stderr.write(`${HOOKS_USAGE}\n`);
    return 2;
  }
  const cwd = resolve(String(parsed.values.cd ?? process.cwd()));
  const { settings, home } = loadConfig({ overrides: parsed.values.config as string[] | undefined });
  if (sub === "trust") {
    // Trust only what the user saw: the hash they pass must be of the bytes on disk now, so a
    // file rewritten between review and trust (by the model, say) is not trusted.
    const given = (parsed.values.sha256 as string[] | undefined) ?? [];
    const found = hooksIn(home, settings, cwd);
    const project = found.sources.filter((s) => s.scope === "project");
    if (!project.length) {
      process.stdout.write(`no project hooks files in ${cwd}\n`);
      return 0;
    }
    if (!given.length) {
      for (const src of project) {
        process.stdout.write(`${src.path} (sha256 ${src.sha256}):\n`);
        for (const h of found.hooks.filter((x) => x.source.path === src.path))
          process.stdout.write(
            `  ${h.event}${h.matcher ? ` (${h.matcher})` : ""}: ${terminalText(JSON.stringify(h.command))}\n`,
          );
      }
      err(
        "nothing trusted: review the commands above, then run `tandem hooks trust --sha256 HASH` with each file's hash",
      );
      return 1;
    }
    const unmatched = project.filter((s) => !given.includes(s.sha256));
    if (unmatched.length) {
      for (const s of unmatched)
        err(`${s.path} hashes to ${s.sha256}, not a --sha256 given: nothing trusted`);
      return 1;
    }
    const trusted = trustHooksIn(home, settings, cwd, given);
    for (const s of trusted) process.stdout.write(`trusted ${s.path} (sha256 ${s.sha256.slice(0, 12)}…)\n`);
    return 0;
  }
  const found = hooksIn(home, settings, cwd);
  if (parsed.values.json) {
    const hooks = found.hooks.map((h) => ({
      event: h.event,
      matcher: h.matcher ?? null,
      command: h.command,
      timeout: h.timeoutSec,
      source: h.source.path,
      scope: h.source.scope,
      trust: h.source.trust,
      key: h.key,
    }));
    const { root, sources, warnings, errors } = found;
    process.stdout.write(`${JSON.stringify({ cwd, root, hooks, sources, warnings, errors }, null, 2)}\n`);
    return 0;
  }
  const t = terminalText;
  if (!found.hooks.length) process.stdout.write(`no hooks apply in ${t(cwd)}\n`);
  for (const s of found.sources) {
    process.stdout.write(`${t(s.path)} (${s.scope}, ${s.trust})\n`);
    for (const h of found.hooks.filter((x) => x.source === s))
      process.stdout.write(
        `  ${h.event}${h.matcher ? ` [${t(h.matcher)}]` : ""}  ${t(h.command)}  (timeout ${h.timeoutSec} s)\n`,
      );
  }
  for (const w of found.warnings) process.stdout.write(`warning: ${t(w)}\n`);
  for (const e of found.errors) process.stdout.write(`error: ${t(e.message)}\n`);
  return 0;
}
