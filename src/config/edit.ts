/**
 * Writes settings into `$TANDEM_HOME/config.toml` the way a person would: one line changed (or
 * added, or removed) per key, every other line — comments, blank lines, order, tables — kept.
 *
 * Contract:
 * - Only the top-level keys in `WRITABLE_KEYS` may be written; any other key is refused
 *   (`unknown_key`, naming the keys that can be). A value must pass the key's schema
 *   (config/schema.ts) or it is refused (`invalid_value`, with the schema's message); `null`
 *   removes the key (the default applies again).
 * - An existing `key = value` line before the first table keeps its indentation and its trailing
 *   comment; a new key goes after the last top-level line, before the first table.
 * - The edited text is parsed again (smol-toml) and must hold exactly the written values, or
 *   nothing is written (`unparsable`: e.g. the key's current value spans several lines).
 * - `expectedVersion`, when given, must be the current file's version (a hash of its bytes), or
 *   nothing is written (`version_conflict`). The file is replaced atomically (temp file + rename)
 *   with the permission bits it had (0600 when new).
 * All refusals are `ConfigEditError`s; the file is untouched by any of them.
 */
import { createHash } from "node:crypto";
import { existsSync, readFileSync, renameSync, statSync, writeFileSync } from "node:fs";
import { isDeepStrictEqual } from "node:util";
import { parse as parseToml } from "smol-toml";
import { Settings } from "./schema.js";

export const WRITABLE_KEYS = [
  "model",
  "model_provider",
  "model_reasoning_effort",
  "model_reasoning_summary",
  "model_context_window",
  "approval_policy",
  "sandbox_mode",
  "service_tier",
] as const;
export type WritableKey = (typeof WRITABLE_KEYS)[number];

export type ConfigEditErrorCode = "unknown_key" | "invalid_value" | "unparsable" | "version_conflict";

export class ConfigEditError extends Error {
  constructor(
    readonly code: ConfigEditErrorCode,
    message: string,
  ) {
    super(message);
    this.name = "ConfigEditError";
  }
}

export interface ConfigEdit {
  key: string;
  value: unknown;
}

/** The version of a config file's text (what `expectedVersion` is compared with). */
export function configVersion(text: string): string {
  return `sha256:${createHash("sha256").update(text).digest("hex")}`;
}

/** Checks one edit: a writable key and a value its schema accepts; returns the value to write. */
export function checkEdit(edit: ConfigEdit): { key: WritableKey; value: unknown } {
  if (!(WRITABLE_KEYS as readonly string[]).includes(edit.key))
    throw new ConfigEditError(
      "unknown_key",
      `${edit.key} cannot be written here; writable keys: ${WRITABLE_KEYS.join(", ")}`,
    );
  const key = edit.key as WritableKey;
  if (edit.value === null) return { key, value: null };
  const r = Settings.shape[key].safeParse(edit.value);
  if (!r.success || r.data === undefined)
    throw new ConfigEditError(
      "invalid_value",
      `${key}: ${r.success ? "a value is required" : r.error.issues.map((i) => i.message).join("; ")}`,
    );
  return { key, value: r.data };
}

const KEY_LINE = /^(\s*)(?:"([A-Za-z0-9_-]+)"|([A-Za-z0-9_-]+))\s*=\s*/;

/** `text` with `edits` applied (pure). Throws ConfigEditError like `writeConfigEdits`. */
export function editConfigText(text: string, edits: ConfigEdit[]): string {
  const checked = edits.map(checkEdit);
  const eol = text.includes("\r\n") ? "\r\n" : "\n";
  const lines = text.length ? text.split(/\r?\n/) : [];
  if (lines.length && lines.at(-1) === "") lines.pop();
  for (const { key, value } of checked) {
    const tableAt = lines.findIndex((l) => /^\s*\[/.test(l));
    const top = tableAt < 0 ? lines.length : tableAt;
    const at = lines.slice(0, top).findIndex((l) => {
      const m = KEY_LINE.exec(l);
      return m !== null && (m[2] ?? m[3]) === key;
    });
    if (value === null) {
      if (at >= 0) lines.splice(at, 1);
      continue;
    }
    const rendered = `${key} = ${tomlValue(value)}`;
    if (at >= 0) {
      const m = KEY_LINE.exec(lines[at]) as RegExpExecArray;
      lines[at] = `${m[1]}${rendered}${trailingComment(lines[at].slice(m[0].length))}`;
    } else {
      let end = top;
      while (end > 0 && lines[end - 1].trim() === "") end--;
      // A comment block right above the first table belongs to the table.
      while (tableAt >= 0 && end > 0 && lines[end - 1].trim().startsWith("#")) end--;
      while (end > 0 && lines[end - 1].trim() === "") end--;
      lines.splice(end, 0, rendered);
    }
  }
  const out = lines.length ? `${lines.join(eol)}${eol}` : "";
  let parsed: Record<string, unknown>;
  try {
    parsed = parseToml(out) as Record<string, unknown>;
  } catch (err) {
    throw new ConfigEditError(
      "unparsable",
      `config.toml would not parse after the edit: ${(err as Error).message}`,
    );
  }
  for (const { key, value } of checked) {
    const now = parsed[key] ?? null;
    if (!isDeepStrictEqual(now, value))
      throw new ConfigEditError(
        "unparsable",
        `${key} could not be edited in place (its current value is not on one line); edit config.toml by hand`,
      );
  }
  return out;
}

/** Applies `edits` to `file` (see the contract); returns the new version. */
export function writeConfigEdits(file: string, edits: ConfigEdit[], expectedVersion?: string | null): string {
  const exists = existsSync(file);
  const before = exists ? readFileSync(file, "utf8") : "";
  if (expectedVersion && expectedVersion !== configVersion(before))
    throw new ConfigEditError(
      "version_conflict",
      `config.toml changed since version ${expectedVersion}; read it again (config/read) and retry`,
    );
  const after = editConfigText(before, edits);
  const mode = exists ? statSync(file).mode & 0o777 : 0o600;
  const tmp = `${file}.tandem-${process.pid}-${Date.now()}.tmp`;
  writeFileSync(tmp, after, { mode, flag: "wx" });
  renameSync(tmp, file);
  return configVersion(after);
}

/** A TOML literal for a schema-checked scalar (strings as basic strings). */
function tomlValue(value: unknown): string {
  if (typeof value === "string") return JSON.stringify(value);
  if (typeof value === "number" || typeof value === "boolean") return String(value);
  throw new ConfigEditError("invalid_value", `cannot write ${JSON.stringify(value)} as one TOML value`);
}

/** The ` # comment` after a one-line value (strings, numbers, booleans), or "". */
function trailingComment(rest: string): string {
  let i = 0;
  if (rest[0] === '"' || rest[0] === "'") {
    const q = rest[0];
    for (i = 1; i < rest.length && rest[i] !== q; i++) if (q === '"' && rest[i] === "\\") i++;
    i++;
  }
  const hash = rest.indexOf("#", i);
  if (hash < 0) return "";
  const gap = /\s*$/.exec(rest.slice(0, hash))?.[0] || " ";
  return `${gap}${rest.slice(hash)}`;
}
