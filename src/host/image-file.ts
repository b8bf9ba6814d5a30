/**
 * An image file the user attaches (TUI image chips, `tandem exec --image`) as the data URL a
 * model request carries.
 *
 * Contract: `imageDataUrl(path, cwd)` reads `path` (relative to `cwd`, `~/` expanded) if it is
 * a regular file of at most MAX_IMAGE_BYTES whose first bytes are a PNG, JPEG, GIF or WebP
 * signature, and resolves `{ url }`; otherwise `{ error }` naming the path and why. Never throws,
 * never blocks on a FIFO (host/files.ts readRegular).
 */
import { homedir } from "node:os";
import { resolve } from "node:path";
import { readRegular } from "./files.js";

export const MAX_IMAGE_BYTES = 20 * 1024 * 1024;

function mimeOf(b: Buffer): string | undefined {
  if (b.length >= 8 && b.subarray(0, 8).equals(Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a])))
    return "image/png";
  if (b.length >= 3 && b[0] === 0xff && b[1] === 0xd8 && b[2] === 0xff) return "image/jpeg";
  if (b.length >= 6 && /^GIF8[79]a$/.test(b.subarray(0, 6).toString("latin1"))) return "image/gif";
  if (
    b.length >= 12 &&
    b.subarray(0, 4).toString("latin1") === "RIFF" &&
    b.subarray(8, 12).toString("latin1") === "WEBP"
  )
    return "image/webp";
  return undefined;
}

export function imageDataUrl(path: string, cwd: string): { url: string } | { error: string } {
  const abs = path.startsWith("~/") ? resolve(homedir(), path.slice(2)) : resolve(cwd, path);
  const r = readRegular(abs, { maxBytes: MAX_IMAGE_BYTES });
  if (!r.ok)
    return {
      error: `image ${path}: ${r.reason === "too_large" ? `larger than ${MAX_IMAGE_BYTES >> 20} MB` : r.message}`,
    };
  const mime = mimeOf(r.data);
  if (!mime) return { error: `image ${path} is not a PNG, JPEG, GIF or WebP file` };
  return { url: `data:${mime};base64,${r.data.toString("base64")}` };
}
