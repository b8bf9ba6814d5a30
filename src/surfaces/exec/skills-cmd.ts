/**
 * `tandem skills [list] [-C DIR] [--json]` — the skills and custom commands Tandem finds for a
 * directory (runtime/skills-api.ts, docs/skills.md), and the files it skipped with the reason.
 * Exit 0 (also with skipped files, which are listed on stderr), 2 on a usage error.
 */
import { resolve } from "node:path";
import { parseArgs } from "node:util";
import { tandemHome } from "../../config/load.js";
import { SkillsApi } from "../../runtime/skills-api.js";
import { argError } from "../../util/cli-args.js";
import { directoryProblem } from "../../util/dirs.js";
import { printable } from "../../util/printable.js";

export const SKILLS_USAGE = `Usage: tandem skills [list] [-C DIR] [--json]

Lists the skills (folders with a SKILL.md) and custom commands (Markdown prompt files) usable in
DIR: the project's .agents/skills/, .claude/skills/, .tandem/commands/, .claude/commands/ (from DIR
up to the repository root), $TANDEM_HOME/skills/, ~/.agents/skills/ and $TANDEM_HOME/prompts/.
Files that were skipped are listed with the reason.

Options:
  -C, --cd DIR   the directory (default: the current directory)
  --json         {"skills": […], "commands": […], "problems": [{"path", "message"}]}
  -h, --help     show this help`;

export async function runSkillsCommand(argv: string[]): Promise<number> {
  const err = (s: string) => process.stderr.write(`tandem skills: ${s}\n`);
  let parsed: ReturnType<typeof parseArgs>;
  try {
    parsed = parseArgs({
      args: argv,
      allowPositionals: true,
      options: {
        cd: { type: "string", short: "C" },
        json: { type: "boolean" },
        help: { type: "boolean", short: "h" },
      },
    });
  } catch (e) {
    err(`${argError(e)}\n\n${SKILLS_USAGE}`);
    return 2;
  }
  const v = parsed.values as { cd?: string; json?: boolean; help?: boolean };
  if (v.help) {
    process.stdout.write(`${SKILLS_USAGE}\n`);
    return 0;
  }
  const [action = "list", ...rest] = parsed.positionals;
  if (action !== "list" || rest.length) {
    err(`unknown arguments '${[action, ...rest].join(" ")}' (only list)\n\n${SKILLS_USAGE}`);
    return 2;
  }
  const problem = v.cd === undefined ? undefined : directoryProblem(v.cd);
  if (problem) {
    err(`--cd: ${problem}`);
    return 2;
  }
  const cwd = resolve(v.cd ?? process.cwd());
  const home = tandemHome();
  const api = new SkillsApi({ home, hidden: [home] });
  const skills = api.list(cwd);
  const commands = api.commands(cwd);
  const problems = [...skills.problems, ...commands.problems];
  if (v.json) {
    const cmds = commands.commands.map(({ template: _t, ...c }) => c);
    process.stdout.write(`${JSON.stringify({ skills: skills.skills, commands: cmds, problems })}\n`);
    return 0;
  }
  const out: string[] = [];
  out.push(skills.skills.length ? "Skills:" : "No skills.");
  for (const s of skills.skills)
    out.push(
      `  $${s.name}  ${printable(s.shortDescription ?? s.description)}`,
      `      ${s.path} (${s.scope})`,
    );
  out.push(commands.commands.length ? "Commands:" : "No custom commands.");
  for (const c of commands.commands)
    out.push(
      `  /${c.name}${c.argumentHint ? ` ${printable(c.argumentHint)}` : ""}  ${printable(c.description)}`,
      `      ${c.path} (${c.scope})`,
    );
  process.stdout.write(`${out.join("\n")}\n`);
  for (const p of problems) process.stderr.write(`warning: ${printable(p.path)}: ${printable(p.message)}\n`);
  return 0;
}
