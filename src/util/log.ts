/**
 * Tandem's debug log (README "Debugging"): one JSON object per line, written to a file that
 * `startLog` (log-file.ts) opens when `TANDEM_LOG=debug|trace`, `--log-file` or `log_level` asks.
 *
 * Contract:
 * - Off by default. While off, `log.debug`/`log.trace` return at once and build nothing; a hook on a
 *   hot path guards its own field-building with `log.enabled(level)` (or passes only values it has).
 * - Levels: `debug` — life cycles and summaries (a model request's URL, status and timing, a
 *   question asked and settled, an HTTP request); `trace` — adds the full wire (request bodies,
 *   every stream event, every protocol frame).
 * - A record is `{"ts", "level", "area", "msg", ...fields}`. Field values are plain JSON data; an
 *   Error becomes `{name, message}`. Strings longer than MAX_STRING characters and fields whose JSON
 *   is longer than MAX_FIELD characters are cut in the middle with a marker saying how much went.
 * - Secrets never reach the file. Before a record is written:
 *   - every value given to `log.secret()` (provider API keys, bearer and WebSocket tokens, secret
 *     answers, the secret store's values — at least MIN_SECRET characters) is replaced by REDACTED
 *     wherever it occurs, as typed and JSON-escaped (a value inside a JSON text inside a field);
 *   - a reply link's token after `/reply/` (a request path, a notification payload) is REDACTED;
 *     an HTTP request's path is first decoded and normalized as the router sees it
 *     (`maskRequestPath`), so an encoded or dotted spelling of a working link is REDACTED too;
 *   - the value under a header-like key (`authorization`, `cookie`, `set-cookie`,
 *     `proxy-authorization`, `x-api-key`, `api-key`) is REDACTED;
 *   - the value under a key named like a `secret: true` question this process has asked
 *     (`log.secretKey()`, by questions/question-log.ts) is REDACTED, so an answer arriving in a frame
 *     before the broker knows its value is hidden too.
 *   Masking happens before any cut, so no part of a secret survives at a cut's edge.
 * - Writing never throws: a failed write turns logging off with one warning on stderr.
 */
import { closeSync, writeSync } from "node:fs";

export type LogLevel = "off" | "debug" | "trace";
type On = "debug" | "trace";

export const REDACTED = "[redacted]";
export const MIN_SECRET = 4;
export const MAX_STRING = 16 * 1024;
export const MAX_FIELD = 64 * 1024;
/** Names of `secret: true` questions remembered for key redaction (oldest forgotten first). */
const MAX_SECRET_KEYS = 1024;
const MAX_DEPTH = 32;

const RANK = { off: 0, debug: 1, trace: 2 } as const;
const HEADER_KEYS = new Set([
  "authorization",
  "proxy-authorization",
  "cookie",
  "set-cookie",
  "x-api-key",
  "api-key",
]);

interface Sink {
  fd: number;
  path: string;
  /** Whether `stopLog` closes the descriptor (not for one the caller owns). */
  owned: boolean;
}

let rank = 0;
let sink: Sink | undefined;
/** Values to mask, longest first, each with its JSON-escaped form when that differs. */
let secrets: string[] = [];
const secretKeys = new Set<string>();

export const log = {
  /** Whether records of `level` are written (use it to skip building costly fields). */
  enabled(level: On): boolean {
    return rank >= RANK[level];
  },
  debug(area: string, msg: string, fields?: Record<string, unknown>): void {
    if (rank >= 1) write("debug", area, msg, fields);
  },
  trace(area: string, msg: string, fields?: Record<string, unknown>): void {
    if (rank >= 2) write("trace", area, msg, fields);
  },
  /** Masks `value` in every later record (ignored while off, and under MIN_SECRET characters). */
  secret(value: string | undefined | null): void {
    if (rank === 0 || typeof value !== "string") return;
    for (const v of new Set([value, value.trim()])) {
      if (v.length < MIN_SECRET) continue;
      const escaped = JSON.stringify(v).slice(1, -1);
      for (const form of new Set([v, escaped])) if (!secrets.includes(form)) secrets.push(form);
    }
    secrets.sort((a, b) => b.length - a.length);
  },
  /** Redacts the value under key `name` in every later record: a `secret: true` question's id. */
  secretKey(name: string): void {
    if (rank === 0) return;
    secretKeys.delete(name);
    secretKeys.add(name);
    if (secretKeys.size > MAX_SECRET_KEYS) secretKeys.delete(secretKeys.values().next().value!);
  },
  /** The file records go to, or undefined while off. */
  get file(): string | undefined {
    return sink?.path;
  },
  get level(): LogLevel {
    return rank === 2 ? "trace" : rank === 1 ? "debug" : "off";
  },
};

/** Starts writing records of `level` and above to `fd` (log-file.ts opens it). Replaces any earlier sink. */
export function attachSink(level: On, fd: number, path: string, owned = true): void {
  stopLog();
  sink = { fd, path, owned };
  rank = RANK[level];
}

/** Stops logging and forgets every secret (tests; a later `startLog`). */
export function stopLog(): void {
  const old = sink;
  sink = undefined;
  rank = 0;
  secrets = [];
  secretKeys.clear();
  if (old?.owned) {
    try {
      closeSync(old.fd);
    } catch {
      // already closed
    }
  }
}

/** A reply link's token in a path or URL (`/reply/<token>`, runtime/reply-links.ts). */
const REPLY_TOKEN = /(\/reply\/)[A-Za-z0-9_-]{16,}/g;

/**
 * A request path with a reply link's token REDACTED however it is spelt: the router percent-decodes
 * and drops dot segments, so `/%72eply/./%41bc…` reaches the link as `/reply/Abc…` does, and the
 * token in it is as good as in the plain form. When the path, decoded (a few rounds) and
 * normalized, names `/reply/` (any case), that form is returned with everything after `/reply/`
 * REDACTED (but a final `/decline`); any other path comes back as it was.
 */
export function maskRequestPath(path: string): string {
  if (!/reply|%/i.test(path)) return path;
  let decoded = path;
  for (let i = 0; i < 3; i++) {
    const next = decoded.replace(/%([0-9A-Fa-f]{2})/g, (_, h: string) =>
      String.fromCharCode(Number.parseInt(h, 16)),
    );
    if (next === decoded) break;
    decoded = next;
  }
  let routed = decoded;
  try {
    routed = new URL(decoded, "http://x").pathname;
  } catch {
    // not a path a URL takes: match it as decoded
  }
  const m = /\/reply(?:\/|\\)/i.exec(routed) ?? /\/reply(?:\/|\\)/i.exec(decoded);
  if (!m) return path;
  const from = m.input === routed ? routed : decoded;
  const tail = /\/decline$/i.test(from) ? "/decline" : "";
  return `${from.slice(0, m.index + m[0].length)}${REDACTED}${tail}`;
}

/** `text` with every registered secret, and every reply link's token, replaced by REDACTED. */
export function maskSecrets(text: string): string {
  let out = text.includes("/reply/") ? text.replace(REPLY_TOKEN, `$1${REDACTED}`) : text;
  for (const v of secrets) if (out.includes(v)) out = out.split(v).join(REDACTED);
  return out;
}

/** Keeps the start and the end of `text` within `max` characters, with a marker for the cut. */
export function cutMiddle(text: string, max: number): string {
  if (text.length <= max) return text;
  const keepHead = Math.floor(max * 0.75);
  const keepTail = max - keepHead;
  const cut = text.length - keepHead - keepTail;
  return `${text.slice(0, keepHead)}…[${cut} characters cut]…${text.slice(text.length - keepTail)}`;
}

function write(level: On, area: string, msg: string, fields?: Record<string, unknown>): void {
  const out = sink;
  if (!out) return;
  let line = `{"ts":${JSON.stringify(new Date().toISOString())},"level":"${level}","area":${json(area)},"msg":${json(msg)}`;
  if (fields) {
    for (const key of Object.keys(fields)) {
      const value = fields[key];
      if (value === undefined) continue;
      let text = JSON.stringify(clean(value, key, 0));
      if (text === undefined) continue;
      if (text.length > MAX_FIELD) text = JSON.stringify(cutMiddle(text, MAX_FIELD));
      line += `,${json(key)}:${text}`;
    }
  }
  line += "}\n";
  try {
    writeSync(out.fd, line);
  } catch (err) {
    stopLog();
    process.stderr.write(
      `tandem: cannot write the debug log ${out.path}: ${(err as Error).message}; logging is off\n`,
    );
  }
}

const json = (s: string) => JSON.stringify(maskSecrets(s));

/** A copy of `value` that is plain JSON data with secrets masked and long strings cut (see contract). */
function clean(value: unknown, key: string | undefined, depth: number): unknown {
  if (key !== undefined && (HEADER_KEYS.has(key.toLowerCase()) || secretKeys.has(key))) return REDACTED;
  switch (typeof value) {
    case "string":
      return cutMiddle(maskSecrets(value), MAX_STRING);
    case "number":
    case "boolean":
      return value;
    case "bigint":
      return String(value);
    case "object":
      break;
    default:
      return undefined;
  }
  if (value === null) return null;
  if (depth >= MAX_DEPTH) return "[nested too deep]";
  if (value instanceof Date) return Number.isNaN(value.getTime()) ? null : value.toISOString();
  if (value instanceof Error)
    return { name: value.name, message: cutMiddle(maskSecrets(value.message), MAX_STRING) };
  if (Array.isArray(value)) return value.map((v) => clean(v, undefined, depth + 1) ?? null);
  if (Buffer.isBuffer(value)) return cutMiddle(maskSecrets(value.toString("utf8")), MAX_STRING);
  const out: Record<string, unknown> = {};
  for (const k of Object.keys(value)) {
    const v = clean((value as Record<string, unknown>)[k], k, depth + 1);
    if (v !== undefined) out[maskSecrets(k)] = v;
  }
  return out;
}
