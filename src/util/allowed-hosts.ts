/**
 * Which `Host` a listener answers (README, "The Host header (DNS rebinding)"): a page on
 * evil.example that re-points its name at 127.0.0.1 makes the victim's browser send
 * `Host: evil.example:PORT` to a local server, and read the answers as its own origin. Shared by
 * `tandem serve` (src/surfaces/http/server.ts) and `tandem app-server --listen ws://` upgrades.
 *
 * Contract of `hostPolicy({ bind, port, allow })`:
 * - Names are compared as a browser writes them (WHATWG URL host: lower case, IPv4 canonical,
 *   IPv6 in brackets), so `LOCALHOST` and `localhost` are one name.
 * - A loopback bind (util/loopback.ts) answers `localhost`, `127.0.0.1`, `[::1]` and its own
 *   address; a wildcard bind (`0.0.0.0`, `::`) those and every address of this machine's
 *   interfaces (re-read when a literal address is not found, so a new address works); any other
 *   bind answers its own address. Each of these only with the listening port (no port means 80).
 * - `allow` adds names the user reaches the server by (`--allow-host`): `NAME` with any port or
 *   none (a reverse proxy may rewrite it), `NAME:PORT` with that port only. No wildcards, no
 *   suffix matching.
 * - `allows(host)` is false for a missing, malformed or unknown Host. It never throws.
 * `parseAllowHost` validates one `--allow-host` value and throws `Error` with a message naming
 * the flag.
 */
import { networkInterfaces } from "node:os";
import { isLoopbackHost } from "./loopback.js";

export interface HostPolicy {
  /** Whether a request with this Host header (or request-target authority) is for us. */
  allows(host: string | undefined): boolean;
}

interface Parsed {
  name: string;
  /** The port as written; "" when none was (80 for http). */
  port: string;
}

/** `name[:port]` in the form a browser sends; undefined for anything else (paths, userinfo…). */
function parseHost(text: string): Parsed | undefined {
  if (!text || /[\s/\\@?#]/.test(text)) return undefined;
  try {
    const url = new URL(`http://${text}`);
    // Letters, digits, dots, hyphens (and `_`, which container names use), or an IPv6 literal.
    if (!/^(?:\[[0-9a-f:.]+\]|[a-z0-9._-]+)$/.test(url.hostname)) return undefined;
    // The URL parser drops a default port (":80"); keep it as written.
    const port = /:(\d+)$/.exec(text)?.[1] ?? "";
    return { name: url.hostname, port: port === "" ? "" : String(Number(port)) };
  } catch {
    return undefined;
  }
}

const LOOPBACK_NAMES = ["localhost", "127.0.0.1", "[::1]"];
const WILDCARDS = new Set(["0.0.0.0", "::", "[::]", "0:0:0:0:0:0:0:0"]);

/** A name for an address as `parseHost` writes it. */
function nameOf(address: string): string {
  return (
    parseHost(address.includes(":") && !address.startsWith("[") ? `[${address}]` : address)?.name ?? address
  );
}

function interfaceNames(): Set<string> {
  const names = new Set<string>();
  for (const a of Object.values(networkInterfaces()).flat())
    if (a && !a.address.includes("%")) names.add(nameOf(a.address));
  return names;
}

/** One `--allow-host` value, checked: `NAME` or `NAME:PORT`, as the user's browser would send it. */
export function parseAllowHost(value: string): string {
  const p = parseHost(value.trim());
  if (!p || p.name.endsWith("."))
    throw new Error(
      `--allow-host expects a host name as the browser sends it (tandem.example.com or tandem.example.com:8443), got "${value}"`,
    );
  return p.port ? `${p.name}:${p.port}` : p.name;
}

export function hostPolicy(opts: { bind: string; port: number; allow?: string[] }): HostPolicy {
  const bind = opts.bind.replace(/^\[|\]$/g, "").toLowerCase();
  const wildcard = WILDCARDS.has(bind);
  const own = new Set<string>([nameOf(bind)]);
  if (wildcard || isLoopbackHost(bind)) for (const n of LOOPBACK_NAMES) own.add(n);
  let local = wildcard ? interfaceNames() : new Set<string>();
  const anyPort = new Set<string>();
  const exact = new Set<string>();
  for (const a of opts.allow ?? []) {
    const p = parseHost(a);
    if (!p) continue;
    if (p.port) exact.add(`${p.name}:${p.port}`);
    else anyPort.add(p.name);
  }
  const listening = String(opts.port);
  return {
    allows(host) {
      const p = host === undefined ? undefined : parseHost(host);
      if (!p) return false;
      if (anyPort.has(p.name) || exact.has(`${p.name}:${p.port || "80"}`)) return true;
      if ((p.port || "80") !== listening) return false;
      if (own.has(p.name) || local.has(p.name)) return true;
      // A wildcard bind answers every address of this machine, also one it got since it started.
      if (wildcard && (/^\d+\.\d+\.\d+\.\d+$/.test(p.name) || p.name.startsWith("["))) {
        local = interfaceNames();
        return local.has(p.name);
      }
      return false;
    },
  };
}

/**
 * The refusal body (a JSON error) for a Host that is not ours. `flag` says where the user adds
 * a name (`--allow-host NAME`). The Host is quoted (JSON-escaped by the caller), at most 100
 * characters.
 */
export function hostRefusal(
  host: string | undefined,
  command: string,
): { error: { code: string; message: string } } {
  const shown = (host ?? "").slice(0, 100);
  const name = parseHost(shown)?.name ?? "NAME";
  return {
    error: {
      code: "host_not_allowed",
      message:
        `this server does not answer to Host "${shown}" (a page of another site may be trying to reach it: DNS rebinding). ` +
        `If that is a name you reach it by, start it with --allow-host ${name} (${command}).`,
    },
  };
}
