/**
 * The one line a surface shows for an attachment message the runtime adds after the user's own
 * (a skill's SKILL.md body, runtime/skill-use.ts; a mentioned file or directory,
 * runtime/file-mentions.ts) — live (the item's `display`) and when history is read back
 * (`--resume`, a web reload, app-server `thread/resume`), so both look the same.
 *
 * Contract: `attachmentLine(text)` is the line for an attachment's text, undefined for any
 * other message. Pure.
 */

const SKILL = /^<skill>\n<name>([^<\n]*)<\/name>\n<path>([^<\n]*)<\/path>\n/;
const FILE = /^<file path="([^"\n]*)"(?: bytes="(\d+)")?(?: shown="(\d+)")?>\n/;
const DIRECTORY = /^<directory path="([^"\n]*)">\n/;

export function attachmentLine(text: string): string | undefined {
  const skill = SKILL.exec(text);
  if (skill) return `[skill ${skill[1]} attached: ${skill[2]}]`;
  const file = FILE.exec(text);
  if (file) {
    const body = text.slice(file[0].length);
    const note = body.startsWith("(not attached: ")
      ? "not read"
      : body.startsWith("(binary file, not attached)")
        ? "binary, not attached"
        : file[3]
          ? `first ${file[3]} of ${file[2]} bytes`
          : `${file[2] ?? "?"} bytes`;
    return `[file ${file[1]} attached (${note})]`;
  }
  const dir = DIRECTORY.exec(text);
  if (dir) {
    const body = text.slice(dir[0].length).replace(/\n<\/directory>$/, "");
    if (body.startsWith("(not attached: "))
      return `[directory ${dir[1].replace(/\/$/, "")} attached (not read)]`;
    const lines = body ? body.split("\n") : [];
    const more = /^\(and (\d+)(\+?) more\)$/.exec(lines.at(-1) ?? "");
    const count = more ? `${lines.length - 1 + Number(more[1])}${more[2]}` : lines.length;
    return `[directory ${dir[1].replace(/\/$/, "")} attached (${count} entries)]`;
  }
  return undefined;
}
