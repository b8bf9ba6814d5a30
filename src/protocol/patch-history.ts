/**
 * An `apply_patch` call read back from history (pure), for surfaces that redraw a resumed
 * thread's patches as the diffs they showed live: the files the patch names, and each file's
 * unified diff from its turn's stored net diff (TurnRecord.diff).
 *
 * Contract:
 * - `patchText(args)`: the patch of a call's arguments (`{"input": patch}` of the function tool,
 *   or the custom tool's input, which is the patch itself).
 * - `patchFiles(patch)`: the files the `*** Add/Update/Delete File:` headers name, in patch order
 *   (`*** Move to:` gives `move_path`).
 * - `diffSections(diff)`: a turn's net diff (`---`/`+++` sections as tools/patch/diff.ts writes
 *   them) split per file, keyed by each side's path without `a/`/`b/`; quoted paths are skipped.
 * - `sectionFor(sections, path)`: the section of `path` (also when one path ends with the other,
 *   a patch's relative path against the diff's), or undefined.
 */
export function patchText(args: string): string {
  try {
    const parsed = JSON.parse(args) as { input?: unknown };
    if (typeof parsed?.input === "string") return parsed.input;
  } catch {
    /* the custom tool's input is the patch itself */
  }
  return args;
}

export interface PatchFile {
  path: string;
  kind: "add" | "update" | "delete";
  move_path: string | null;
}

export function patchFiles(patch: string): PatchFile[] {
  const out: PatchFile[] = [];
  for (const line of patch.split(/\r?\n/)) {
    const m = /^\*\*\* (Add|Update|Delete) File: (.+)$/.exec(line);
    if (m) {
      const kind = m[1] === "Add" ? "add" : m[1] === "Delete" ? "delete" : "update";
      out.push({ path: m[2].trim(), kind, move_path: null });
      continue;
    }
    const move = /^\*\*\* Move to: (.+)$/.exec(line);
    const last = out.at(-1);
    if (move && last?.kind === "update") last.move_path = move[1].trim();
  }
  return out;
}

export function diffSections(diff: string | null | undefined): Map<string, string> {
  const out = new Map<string, string>();
  if (!diff) return out;
  const lines = diff.split("\n");
  let start = -1;
  const flush = (end: number) => {
    if (start < 0) return;
    const text = `${lines.slice(start, end).join("\n")}\n`;
    for (const header of [lines[start], lines[start + 1]]) {
      const m = /^(?:---|\+\+\+) [ab]\/(.+)$/.exec(header ?? "");
      if (m && !out.has(m[1])) out.set(m[1], text);
    }
  };
  for (let i = 0; i < lines.length; i++) {
    if (lines[i].startsWith("--- ") && lines[i + 1]?.startsWith("+++ ")) {
      flush(i);
      start = i;
      i++;
    }
  }
  flush(lines.at(-1) === "" ? lines.length - 1 : lines.length);
  return out;
}

export function sectionFor(sections: Map<string, string>, path: string): string | undefined {
  const direct = sections.get(path);
  if (direct !== undefined) return direct;
  for (const [p, d] of sections) if (p.endsWith(`/${path}`) || path.endsWith(`/${p}`)) return d;
  return undefined;
}
