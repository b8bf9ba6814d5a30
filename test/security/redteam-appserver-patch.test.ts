/**
 * Red team, patch diffs sent to app-server clients (the approval's would-be diff, file-change.ts):
 * a hostile model links a workspace name to a file outside it (an /etc/shadow stand-in under
 * /var/lib, Tandem's credentials) and asks apply_patch to update, move or delete it, by the
 * link, through a linked directory, by absolute path and by `../`. No diff may hold the outside
 * file's content. Already safe (planPatch refuses paths outside the roots); kept as a guard.
 */
import { mkdirSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { previewPatch } from "../../src/tools/patch/index.js";
import { outsideDir, tempDir } from "../helpers/index.js";

const patch = (body: string) => `*** Begin Patch\n${body}\n*** End Patch`;

describe("red team: a patch diff never shows a file outside the workspace", () => {
  const dirs: string[] = [];
  afterEach(() => {
    for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
  });

  for (const where of ["/tmp", "outside"] as const) {
    // Fails if previewPatch reads through the link (the diff then carries SECRETHASH).
    it(`links, ../ and absolute paths out of the workspace give no diff (workspace ${where})`, () => {
      const ws = where === "/tmp" ? tempDir("tandem-ws-") : outsideDir("tandem-ws-");
      const out = outsideDir("tandem-secret-");
      dirs.push(ws, out);
      writeFileSync(join(out, "shadow"), "root:SECRETHASH:1\nline2\n");
      mkdirSync(join(out, "d"));
      writeFileSync(join(out, "d", "f"), "SECRETHASH\n");
      symlinkSync(join(out, "shadow"), join(ws, "link"));
      symlinkSync(join(out, "d"), join(ws, "dl"));
      const up = "../".repeat(12) + out.slice(1);
      for (const body of [
        "*** Delete File: link",
        "*** Update File: link\n@@\n root:SECRETHASH:1\n-line2\n+x",
        "*** Update File: link\n*** Move to: moved.txt\n@@\n-line2\n+x",
        "*** Delete File: dl/f",
        "*** Update File: dl/f\n@@\n-SECRETHASH\n+x",
        `*** Delete File: ${out}/shadow`,
        `*** Delete File: ${up}/shadow`,
      ]) {
        const changes = previewPatch(patch(body), ws);
        expect(JSON.stringify(changes ?? null), body).not.toContain("SECRETHASH");
      }
      // The control: the same patch on a file inside the workspace does show its content.
      writeFileSync(join(ws, "inside"), "root:SECRETHASH:1\nline2\n");
      expect(JSON.stringify(previewPatch(patch("*** Delete File: inside"), ws))).toContain("SECRETHASH");
    });
  }
});
