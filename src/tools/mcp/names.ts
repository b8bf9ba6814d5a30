/**
 * Model-facing names of MCP tools (README "MCP servers"): `mcp__<server>__<tool>`, fitted to the
 * Responses rules for function names (`^[a-zA-Z0-9_-]+$`, at most 64 characters).
 *
 * Contract of `assignToolNames`: every character outside the allowed set becomes `_`. A name that
 * is then too long, or that another tool of the same list already took, is cut and ends in `_`
 * plus 8 hex digits of the SHA-1 of the raw `server/tool` pair, so it stays unique and stable
 * across runs. Tools whose names needed no change are named first: they keep the plain name
 * whatever order the server lists them in. `taken` holds names already used (other servers).
 */
import { createHash } from "node:crypto";

export const MAX_TOOL_NAME = 64;
const HASH_LEN = 8;

export function sanitizeName(s: string): string {
  return s.replace(/[^a-zA-Z0-9_-]/g, "_");
}

function hashed(base: string, server: string, tool: string): string {
  const h = createHash("sha1").update(`${server}/${tool}`).digest("hex").slice(0, HASH_LEN);
  return `${base.slice(0, MAX_TOOL_NAME - HASH_LEN - 1)}_${h}`;
}

/** Model-facing name for each of `tools` (same order). Adds the names it hands out to `taken`. */
export function assignToolNames(server: string, tools: string[], taken = new Set<string>()): string[] {
  const raw = tools.map((t) => `mcp__${server}__${t}`);
  const plain = raw.map(sanitizeName);
  const out: string[] = new Array(tools.length);
  const order = tools
    .map((_, i) => i)
    .sort((a, b) => Number(plain[a] !== raw[a]) - Number(plain[b] !== raw[b]));
  for (const i of order) {
    let name = plain[i];
    if (name.length > MAX_TOOL_NAME || taken.has(name)) name = hashed(name, server, tools[i]);
    // Two raw pairs hashing alike is not a real case; still never hand out one name twice.
    for (let n = 2; taken.has(name); n++) name = hashed(plain[i], server, `${tools[i]}#${n}`);
    taken.add(name);
    out[i] = name;
  }
  return out;
}
