/**
 * Ctrl+V in the composer (README "The terminal UI"): the image on the system clipboard, saved
 * to a temporary PNG whose path the composer turns into an image chip. A terminal passes only
 * text to the program, so the clipboard is read as Codex and Claude Code read it: through the
 * desktop's clipboard tool — `wl-paste` (Wayland), else `xclip` (X11) — found on PATH.
 *
 * Contract: resolves `{ path }` of a PNG of at most MAX_BYTES, or `{ error }` saying what is
 * missing (no tool, no image on the clipboard, too large); never throws. The tool gets 3 s.
 */
import { spawnSync } from "node:child_process";
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";

export const MAX_CLIPBOARD_IMAGE_BYTES = 20 * 1024 * 1024;
const PNG = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);

const TOOLS: Array<{ cmd: string; args: string[] }> = [
  { cmd: "wl-paste", args: ["--no-newline", "--type", "image/png"] },
  { cmd: "xclip", args: ["-selection", "clipboard", "-target", "image/png", "-out"] },
];

export function clipboardImage(): { path: string } | { error: string } {
  let tried = false;
  for (const t of TOOLS) {
    const r = spawnSync(t.cmd, t.args, { timeout: 3000, maxBuffer: MAX_CLIPBOARD_IMAGE_BYTES + 1 });
    if ((r.error as NodeJS.ErrnoException | undefined)?.code === "ENOENT") continue;
    tried = true;
    const data = r.stdout;
    if (r.status !== 0 || !data || data.length < PNG.length || !data.subarray(0, 8).equals(PNG)) continue;
    if (data.length > MAX_CLIPBOARD_IMAGE_BYTES)
      return { error: `the clipboard's image is larger than ${MAX_CLIPBOARD_IMAGE_BYTES >> 20} MB` };
    const dir = mkdtempSync(join(tmpdir(), "tandem-clipboard-"));
    const path = join(dir, "clipboard.png");
    writeFileSync(path, data, { mode: 0o600 });
    return { path };
  }
  return {
    error: tried
      ? "no image on the clipboard (copy one first, or paste an image file's path)"
      : "Ctrl+V reads images with wl-paste (Wayland) or xclip (X11), and neither is installed; paste the image file's path instead",
  };
}
