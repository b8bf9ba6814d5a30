/**
 * `tandem rules list|remove` — the approval rules "Accept and remember" stored for a project
 * (runtime/approvals.ts: per git root, in the store meta). `list` prints the project and its
 * numbered rules; `remove N` or `remove WORDS…` (the rule exactly as listed) deletes one.
 * Usage errors exit 2; removing a rule that is not there exits 1.
 */
import { resolve } from "node:path";
import { parseArgs } from "node:util";
import { rulesProject } from "../../runtime/approvals.js";
import { openCatalog } from "../../runtime/catalog.js";
import { argError } from "../../util/cli-args.js";
import { directoryProblem } from "../../util/dirs.js";

export const RULES_USAGE = `Usage: tandem rules [list] [-C DIR] [--json]   the approval rules remembered for this project
       tandem rules remove N|RULE [-C DIR]     forget one (its number in the list, or its words)

A rule is stored by "Accept and remember" in an approval prompt: commands starting with its
words run without asking in that project (the git repository containing DIR, else DIR).

Options:
  -C, --cd DIR              the project's directory (default: the current directory)
  --json                    list as {"project": …, "rules": [[word, …], …]}
  -c, --config key=value    override a config value (TOML value), repeatable
  -h, --help                show this help`;

/** A rule as a shell would read it: words with spaces or quotes are single-quoted. */
const shown = (rule: string[]) =>
  rule.map((w) => (/^[\w@%+=:,./-]+$/.test(w) ? w : `'${w.replace(/'/g, "'\\''")}'`)).join(" ");

export async function runRulesCommand(argv: string[]): Promise<number> {
  const err = (s: string) => process.stderr.write(`tandem rules: ${s}\n`);
  let parsed: ReturnType<typeof parseArgs>;
  try {
    parsed = parseArgs({
      args: argv,
      allowPositionals: true,
      options: {
        cd: { type: "string", short: "C" },
        json: { type: "boolean" },
        help: { type: "boolean", short: "h" },
        config: { type: "string", short: "c", multiple: true },
      },
    });
  } catch (e) {
    err(`${argError(e)}\n\n${RULES_USAGE}`);
    return 2;
  }
  const v = parsed.values as { cd?: string; json?: boolean; help?: boolean; config?: string[] };
  if (v.help) {
    process.stdout.write(`${RULES_USAGE}\n`);
    return 0;
  }
  const [action = "list", ...words] = parsed.positionals;
  if (action !== "list" && action !== "remove") {
    err(`unknown action '${action}' (list or remove)\n\n${RULES_USAGE}`);
    return 2;
  }
  if (action === "list" && words.length) {
    err(`list takes no arguments, got '${words[0]}'`);
    return 2;
  }
  if (action === "remove" && !words.length) {
    err("remove needs a rule number (see `tandem rules list`) or the rule's words");
    return 2;
  }
  const problem = v.cd === undefined ? undefined : directoryProblem(v.cd);
  if (problem) {
    err(`--cd: ${problem}`);
    return 2;
  }
  const cwd = resolve(v.cd ?? process.cwd());
  const project = rulesProject(cwd);
  const store = openCatalog({ overrides: v.config ?? [], warn: (w) => err(`warning: ${w}`) });
  try {
    const rules = store.rules(cwd);
    if (action === "list") {
      if (v.json) process.stdout.write(`${JSON.stringify({ project, rules })}\n`);
      else if (!rules.length)
        process.stdout.write(
          `No remembered approval rules for ${project}.\n("Accept and remember" in an approval prompt adds one.)\n`,
        );
      else {
        process.stdout.write(`Approval rules remembered for ${project}:\n`);
        for (const [i, r] of rules.entries()) process.stdout.write(`  ${i + 1}. ${shown(r)}\n`);
      }
      return 0;
    }
    const text = words.join(" ");
    const n = /^\d+$/.test(text) ? Number(text) : Number.NaN;
    const index =
      n >= 1 && n <= rules.length ? n - 1 : rules.findIndex((r) => shown(r) === text || r.join(" ") === text);
    if (index < 0) {
      const known = rules.length ? `it has ${rules.length} (see \`tandem rules list\`)` : "it has none";
      err(`no rule ${/^\d+$/.test(text) ? `number ${text}` : `\`${text}\``} for ${project}: ${known}`);
      return 1;
    }
    const [removed] = rules.splice(index, 1);
    store.setRules(cwd, rules);
    process.stdout.write(`Removed rule ${index + 1} \`${shown(removed)}\` for ${project}.\n`);
    return 0;
  } finally {
    store.close();
  }
}
