/**
 * Edits the `[mcp_servers.*]` tables of `$TANDEM_HOME/config.toml` (`tandem mcp add|remove`).
 *
 * Contract: the file is parsed with smol-toml, one server is set or deleted, and the document is
 * written back whole (atomically: a temp file renamed over it). Every other setting is kept with
 * its value; comments and formatting are not (TOML round-trips through data). A file that does
 * not parse, or a server entry the schema refuses, throws `ConfigError` and writes nothing.
 */
import { existsSync, mkdirSync, readFileSync, renameSync, writeFileSync } from "node:fs";
import { dirname } from "node:path";
import { parse, stringify } from "smol-toml";
import { ConfigError } from "../../config/load.js";
import { McpServerConfig, McpServerName } from "../../config/schema.js";

type Doc = Record<string, unknown>;

function read(file: string): Doc {
  if (!existsSync(file)) return {};
  try {
    return parse(readFileSync(file, "utf8")) as Doc;
  } catch (err) {
    throw new ConfigError(
      `cannot parse ${file}: ${(err as Error).message}; fix it first, nothing was changed`,
    );
  }
}

function write(file: string, doc: Doc): void {
  mkdirSync(dirname(file), { recursive: true });
  const tmp = `${file}.${process.pid}.tmp`;
  writeFileSync(tmp, `${stringify(doc)}\n`);
  renameSync(tmp, file);
}

function servers(doc: Doc): Record<string, unknown> {
  const s = doc.mcp_servers;
  return typeof s === "object" && s !== null && !Array.isArray(s) ? (s as Record<string, unknown>) : {};
}

/** Checks a server entry as config.toml would hold it; returns the message of the first problem. */
export function entryProblem(name: string, entry: Record<string, unknown>): string | undefined {
  if (!McpServerName.safeParse(name).success)
    return `"${name}" is not a valid MCP server name: use only letters, digits, _ and -`;
  const r = McpServerConfig.safeParse(entry);
  if (r.success) return undefined;
  const i = r.error.issues[0];
  return `${i.path.length ? `${i.path.join(".")}: ` : ""}${i.message}`;
}

/** Sets `[mcp_servers.NAME]` to `entry`. Returns whether a server of that name was replaced. */
export function setServer(file: string, name: string, entry: Record<string, unknown>): boolean {
  const problem = entryProblem(name, entry);
  if (problem) throw new ConfigError(problem);
  const doc = read(file);
  const all = servers(doc);
  const replaced = Object.hasOwn(all, name);
  doc.mcp_servers = { ...all, [name]: entry };
  write(file, doc);
  return replaced;
}

/** Deletes `[mcp_servers.NAME]`. Returns false (writing nothing) when there is none. */
export function removeServer(file: string, name: string): boolean {
  const doc = read(file);
  const all = servers(doc);
  if (!Object.hasOwn(all, name)) return false;
  const { [name]: _, ...rest } = all;
  if (Object.keys(rest).length) doc.mcp_servers = rest;
  else delete doc.mcp_servers;
  write(file, doc);
  return true;
}
