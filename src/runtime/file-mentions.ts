/**
 * Files the user mentions as `@path` (README "Mention files: `@`"): each one that is a file in
 * the workspace is attached to the turn as one user message after the user's own — its path and
 * contents within a budget — as Claude Code and OpenCode do, so the model has it without a read.
 *
 * A mention is `@` at the start of the text or after whitespace or `(`, followed by a path
 * (`@src/a.ts`) or a quoted one (`@"docs/my notes.md"`); trailing punctuation (`.,;:!?)]`)
 * is not part of it, so `see @README.md.` works and `me@example.com` is no mention.
 *
 * Contract:
 * - Only paths under `root` (the turn's directory) are read, through host/files.ts `readRegular`
 *   on the open descriptor: a symlink the model planted that leads out of the workspace or into
 *   one of Tandem's own paths (`exclude`), a FIFO or a device is never read; it is attached as a
 *   one-line note saying why. A mention of a missing path is plain text (nothing attached).
 * - At most MAX_MENTIONS files, MAX_FILE_BYTES each and MAX_TOTAL_BYTES in all (a cut file says
 *   so); a binary file (a NUL byte) is named, not attached; a directory attaches its listing.
 * - Parsing is linear in the text and at most MAX_CANDIDATES paths (none longer than MAX_PATH)
 *   are looked up, so a pasted log or a hostile message cannot stall the host.
 * - Text passes `mask` (the thread's secrets) before it is attached. Never throws.
 */
import { statSync } from "node:fs";
import { isAbsolute, relative, resolve, sep } from "node:path";
import { listDir, readRegular } from "../host/files.js";
import { attachmentLine } from "../protocol/attachment.js";
import { type MessageItem, userMessage } from "../protocol/items.js";

export const MAX_MENTIONS = 20;
export const MAX_FILE_BYTES = 64 * 1024;
export const MAX_TOTAL_BYTES = 256 * 1024;
const MAX_LISTING = 200;
/** Entries read of a directory at most (the rest are "and N+ more"): a million names cost no more. */
const MAX_SCAN = 10_000;
/** Distinct mentioned paths looked up at most (a missing one is plain text but costs a stat). */
export const MAX_CANDIDATES = 100;
/** A longer mention is no path (PATH_MAX). */
const MAX_PATH = 4096;

const MENTION = /(?:^|[\s(])@(?:"([^"\n]+)"|([^\s"@][^\s"]*))/g;
const TRAILING = /[.,;:!?)\]]+$/;
const TRAILING_CHARS = ".,;:!?)]";

/** `p` without its trailing punctuation; a loop, as the regex backtracks quadratically. */
function trimTrailing(p: string): string {
  let end = p.length;
  while (end > 0 && TRAILING_CHARS.includes(p[end - 1])) end--;
  return p.slice(0, end);
}

/** The paths `text` mentions, in order, without repeats (see the module comment for the syntax). */
export function mentionedPaths(text: string): string[] {
  const seen = new Set<string>();
  for (const m of text.matchAll(MENTION)) {
    const p = m[1] ?? trimTrailing(m[2]);
    if (p && p.length <= MAX_PATH && !p.includes("\0")) seen.add(p);
    if (seen.size >= MAX_CANDIDATES) break;
  }
  return [...seen];
}

/** `@path` as the composer inserts it: quoted when the path holds a space or a quote-free oddity. */
export function mentionToken(path: string): string {
  return /[\s()]/.test(path) || TRAILING.test(path) ? `@"${path}"` : `@${path}`;
}

export interface MentionOptions {
  /** The turn's directory: only paths under it are attached. */
  root: string;
  /** Tandem's own paths (its home, the store): never read, even under `root`. */
  exclude: readonly string[];
  /** The thread's secrets masked out of whatever is attached. */
  mask(text: string): string;
}

export interface MentionAttachment {
  item: MessageItem;
  /** What surfaces show for it instead of the contents. */
  display: string;
  path: string;
}

/** The attachments for the files `text` mentions (see the contract). */
export function attachMentions(text: string, opts: MentionOptions): MentionAttachment[] {
  if (!text.includes("@")) return [];
  const out: MentionAttachment[] = [];
  let budget = MAX_TOTAL_BYTES;
  for (const mentioned of mentionedPaths(text)) {
    if (out.length >= MAX_MENTIONS) break;
    const abs = resolve(opts.root, mentioned);
    const rel = relative(opts.root, abs);
    if (rel === "" || rel.startsWith(`..${sep}`) || rel === ".." || isAbsolute(rel)) continue;
    const shown = rel.split(sep).join("/");
    const body = describe(abs, shown, Math.min(MAX_FILE_BYTES, budget), opts);
    if (!body) continue;
    budget -= Buffer.byteLength(body.text);
    out.push({
      item: userMessage(opts.mask(body.text)),
      display: attachmentLine(body.text) ?? `[${body.kind} ${shown} attached]`,
      path: shown,
    });
  }
  return out;
}

interface Described {
  text: string;
  kind: "file" | "directory";
}

function describe(abs: string, shown: string, maxBytes: number, opts: MentionOptions): Described | undefined {
  let isDir = false;
  try {
    isDir = statSync(abs).isDirectory();
  } catch {
    return undefined;
  }
  if (isDir) return listing(abs, shown, opts);
  const read = readRegular(abs, {
    maxBytes: Math.max(0, maxBytes),
    truncate: true,
    within: { root: opts.root, exclude: opts.exclude },
  });
  if (!read.ok) {
    const why = read.reason === "outside" ? "it leads outside the workspace" : read.message;
    return { kind: "file", text: `<file path="${shown}">\n(not attached: ${why})\n</file>` };
  }
  const size = read.stat.size;
  if (read.data.includes(0))
    return {
      kind: "file",
      text: `<file path="${shown}" bytes="${size}">\n(binary file, not attached)\n</file>`,
    };
  const cut = read.data.length < size;
  return {
    kind: "file",
    text: `<file path="${shown}" bytes="${size}"${cut ? ` shown="${read.data.length}"` : ""}>\n${read.data.toString("utf8")}${cut ? "\n(cut here: the file is longer)" : ""}\n</file>`,
  };
}

function listing(abs: string, shown: string, opts: MentionOptions): Described | undefined {
  const read = listDir(abs, { maxEntries: MAX_SCAN, within: { root: opts.root, exclude: opts.exclude } });
  if (!read.ok && read.reason === "outside")
    return {
      kind: "directory",
      text: `<directory path="${shown}">\n(not attached: it leads outside the workspace)\n</directory>`,
    };
  if (!read.ok) return undefined;
  const names = read.entries.map((e) => (e.dir ? `${e.name}/` : e.name)).sort();
  const left = names.length - MAX_LISTING;
  const more =
    left > 0 || !read.complete ? `\n(and ${Math.max(0, left)}${read.complete ? "" : "+"} more)` : "";
  return {
    kind: "directory",
    text: `<directory path="${shown}/">\n${names.slice(0, MAX_LISTING).join("\n")}${more}\n</directory>`,
  };
}
