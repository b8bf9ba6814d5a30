/**
 * How a node reaches the cluster bus (docs/scale-out.md, "Trust model"): the `--bus` flags of
 * `tandem serve` and `tandem app-server`, the NATS credentials and TLS they name, and the
 * refusal of a bus anyone can join.
 *
 * Contract:
 * - `busSettings(flags, env)` validates the flags (undefined without `--bus`); a mistake, an
 *   unreadable file or a bus that needs no credentials is a BusConfigError (the CLI exits 2).
 *   Secrets come from files (`--bus-creds`, `--bus-nkey`, `--bus-key`) or the environment
 *   (TANDEM_BUS_PASSWORD, TANDEM_BUS_TOKEN), so they need not appear in `ps`; a password or
 *   token in the URL works too. Messages name flags and files, never a secret (`display`
 *   masks the URL's password).
 * - A bus whose servers are not all loopback is refused unless the node authenticates to it
 *   (user/password, token, nkey, creds file, or a TLS client certificate) or `--insecure-bus`
 *   is given. `connectBus` also refuses a non-loopback server that tells clients it requires no
 *   authorization (same flag), since anyone who reaches it could join.
 * - `tls://host:port`, `--bus-ca`, `--bus-cert` or `--bus-key` require TLS; the CA file
 *   replaces the system's trusted roots.
 */
import { accessSync, constants, readFileSync } from "node:fs";
import type { Authenticator, NatsConnection, NodeConnectionOptions } from "@nats-io/transport-node";
import { isLoopbackHost } from "../util/loopback.js";

/** A bus setting that cannot work or is unsafe: the CLI says so and exits 2. */
export class BusConfigError extends Error {}

export interface BusSettings {
  /** host:port of each server, credentials removed. */
  servers: string[];
  /** The URL as given, its password or token masked: for messages. */
  display: string;
  user?: string;
  pass?: string;
  token?: string;
  nkeySeed?: string;
  creds?: Uint8Array;
  tls?: { caFile?: string; certFile?: string; keyFile?: string };
  loopback: boolean;
  insecure: boolean;
}

/** parseArgs options shared by `tandem serve` and `tandem app-server`. */
export const BUS_FLAGS = {
  bus: { type: "string" },
  "bus-user": { type: "string" },
  "bus-creds": { type: "string" },
  "bus-nkey": { type: "string" },
  "bus-ca": { type: "string" },
  "bus-cert": { type: "string" },
  "bus-key": { type: "string" },
  "insecure-bus": { type: "boolean" },
} as const;

export type BusFlagValues = {
  bus?: string;
  "bus-user"?: string;
  "bus-creds"?: string;
  "bus-nkey"?: string;
  "bus-ca"?: string;
  "bus-cert"?: string;
  "bus-key"?: string;
  "insecure-bus"?: boolean;
};

const HELP: Array<[string, string]> = [
  ["--bus-user NAME", "NATS user; its password in $TANDEM_BUS_PASSWORD (or nats://user:pass@host)"],
  ["", "(a NATS token: $TANDEM_BUS_TOKEN, or nats://token@host)"],
  ["--bus-creds FILE", "NATS credentials file (user JWT and nkey seed)"],
  ["--bus-nkey FILE", "file holding a NATS user nkey seed (SU…)"],
  ["--bus-ca FILE", "CA certificate(s) to trust for the server's TLS (tls://host:port asks for TLS)"],
  ["--bus-cert FILE", "TLS client certificate; --bus-key FILE, its private key"],
  ["--insecure-bus", "join a bus off this machine without credentials (anyone who reaches it could)"],
];

/** The bus flags' usage lines, descriptions from column `width` (a long flag gets its own line). */
export function busUsage(width: number): string {
  const pad = " ".repeat(width);
  return HELP.map(([flag, text]) =>
    flag.length + 3 > width ? `  ${flag}\n${pad}${text}` : `  ${flag.padEnd(width - 2)}${text}`,
  ).join("\n");
}

/** The validated bus settings; undefined without `--bus`. Throws BusConfigError. */
export function busSettings(v: BusFlagValues, env: NodeJS.ProcessEnv): BusSettings | undefined {
  if (!v.bus) {
    const stray = Object.keys(BUS_FLAGS).find(
      (k) => k !== "bus" && v[k as keyof BusFlagValues] !== undefined,
    );
    if (stray) throw new BusConfigError(`--${stray} needs --bus`);
    return undefined;
  }
  const s: BusSettings = { servers: [], display: "", loopback: true, insecure: v["insecure-bus"] === true };
  const shown: string[] = [];
  let tls = false;
  let inUrl: { user: string; pass?: string } | undefined;
  for (const raw of v.bus.split(",").map((u) => u.trim())) {
    let url: URL;
    try {
      url = new URL(/^[a-z]+:\/\//i.test(raw) ? raw : `nats://${raw}`);
    } catch {
      throw new BusConfigError(`--bus: not a NATS URL: ${JSON.stringify(mask(raw))} (nats://host:4222)`);
    }
    if (url.protocol !== "nats:" && url.protocol !== "tls:")
      throw new BusConfigError(
        `--bus: ${url.protocol}// is not a NATS URL; use nats://host:4222 or tls://host:4222`,
      );
    if (!url.hostname) throw new BusConfigError(`--bus: no host in ${JSON.stringify(mask(raw))}`);
    tls ||= url.protocol === "tls:";
    if (url.username) {
      const here = {
        user: decodeURIComponent(url.username),
        pass: url.password ? decodeURIComponent(url.password) : undefined,
      };
      if (inUrl && (inUrl.user !== here.user || inUrl.pass !== here.pass))
        throw new BusConfigError(
          "--bus: the servers name different credentials; give them once, the same for all",
        );
      inUrl = here;
    }
    const port = url.port || "4222";
    s.servers.push(`${url.hostname}:${port}`);
    s.loopback &&= isLoopbackHost(url.hostname);
    shown.push(mask(url.href));
  }
  s.display = shown.join(",");

  const password = env.TANDEM_BUS_PASSWORD || undefined;
  if (v["bus-user"] !== undefined) {
    if (inUrl && inUrl.user !== v["bus-user"])
      throw new BusConfigError("--bus-user names another user than the --bus URL; give the user once");
    s.user = v["bus-user"];
    s.pass = inUrl?.pass ?? password;
    if (!s.pass) throw new BusConfigError("--bus-user needs a password: set TANDEM_BUS_PASSWORD");
  } else if (inUrl) {
    // NATS's convention: nats://token@host is a token, nats://user:pass@host a user.
    if (inUrl.pass !== undefined || password)
      Object.assign(s, { user: inUrl.user, pass: inUrl.pass ?? password });
    else s.token = inUrl.user;
  }
  if (env.TANDEM_BUS_TOKEN) s.token ??= env.TANDEM_BUS_TOKEN;
  if (v["bus-nkey"]) {
    const seed = readSecret("--bus-nkey", v["bus-nkey"]).toString("utf8").trim();
    if (!/^SU[A-Z2-7]{50,}$/.test(seed))
      throw new BusConfigError(
        `--bus-nkey ${v["bus-nkey"]}: the file does not hold a NATS user nkey seed (SU…)`,
      );
    s.nkeySeed = seed;
  }
  if (v["bus-creds"]) {
    const creds = readSecret("--bus-creds", v["bus-creds"]);
    const text = creds.toString("utf8");
    if (!/BEGIN NATS USER JWT/.test(text) || !/BEGIN USER NKEY SEED/.test(text))
      throw new BusConfigError(
        `--bus-creds ${v["bus-creds"]}: not a NATS credentials file (user JWT and nkey seed)`,
      );
    s.creds = new Uint8Array(creds);
  }
  if (v["bus-cert"] || v["bus-key"]) {
    if (!v["bus-cert"] || !v["bus-key"])
      throw new BusConfigError(
        "--bus-cert and --bus-key go together: the client certificate and its private key",
      );
  }
  const files = { caFile: v["bus-ca"], certFile: v["bus-cert"], keyFile: v["bus-key"] };
  for (const [flag, file] of [
    ["--bus-ca", files.caFile],
    ["--bus-cert", files.certFile],
    ["--bus-key", files.keyFile],
  ] as const)
    if (file) readable(flag, file);
  if (tls || files.caFile || files.certFile)
    s.tls = Object.fromEntries(Object.entries(files).filter(([, f]) => f)) as BusSettings["tls"];

  const authenticates = Boolean(s.user || s.token || s.nkeySeed || s.creds || files.certFile);
  if (!authenticates && !s.loopback && !s.insecure)
    throw new BusConfigError(
      `--bus ${s.display}: the bus is not on this machine and no NATS credentials were given, so anyone who ` +
        "can reach it could join the cluster's bus. Give credentials (--bus-user with TANDEM_BUS_PASSWORD, " +
        "TANDEM_BUS_TOKEN, --bus-nkey, --bus-creds or --bus-cert/--bus-key), or pass --insecure-bus to accept that",
    );
  return s;
}

/**
 * Connects (reconnecting forever afterwards). Throws Error naming the masked URL when it cannot,
 * BusConfigError when a non-loopback server requires no authorization and `--insecure-bus` is
 * absent.
 */
export async function connectBus(s: BusSettings, name: string): Promise<NatsConnection> {
  // Loaded here, not at the top: every surface's start-up imports this module for the flags,
  // and the NATS client (~300 KB with its crypto) is only for a node that joins a cluster.
  // A CommonJS package: its exports are `default` (Node's interop names them too; esbuild's
  // split chunk does not).
  const mod = await import("@nats-io/transport-node");
  const { connect, credsAuthenticator, nkeyAuthenticator } = mod.default ?? mod;
  const authenticator: Authenticator[] = [];
  if (s.nkeySeed) authenticator.push(nkeyAuthenticator(new TextEncoder().encode(s.nkeySeed)));
  if (s.creds) authenticator.push(credsAuthenticator(s.creds));
  const opts: NodeConnectionOptions = {
    servers: s.servers,
    name,
    maxReconnectAttempts: -1,
    // What this connection publishes is not delivered back to it: a node would only open its
    // own frames (each event it publishes) to drop them.
    noEcho: true,
    reconnectTimeWait: 250,
    ...(s.user ? { user: s.user, pass: s.pass } : {}),
    ...(s.token ? { token: s.token } : {}),
    ...(authenticator.length ? { authenticator } : {}),
    ...(s.tls ? { tls: s.tls } : {}),
  };
  let nc: NatsConnection;
  try {
    nc = await connect(opts);
  } catch (e) {
    throw new Error(`cannot connect to NATS at ${s.display}: ${(e as Error).message}`);
  }
  if (!s.loopback && !s.insecure && !nc.info?.auth_required && !nc.info?.tls_verify) {
    await nc.close().catch(() => {});
    throw new BusConfigError(
      `--bus ${s.display}: that NATS server lets any client connect without credentials, so anyone who can ` +
        "reach it could join the cluster's bus. Configure authorization on it, or pass --insecure-bus to accept that",
    );
  }
  return nc;
}

/** `url` with its password (or token) replaced by ***. */
function mask(url: string): string {
  return url.replace(/^([a-z]+:\/\/)([^@/]*)@/i, (_, scheme: string, info: string) => {
    const colon = info.indexOf(":");
    return colon < 0 ? `${scheme}***@` : `${scheme}${info.slice(0, colon)}:***@`;
  });
}

function readable(flag: string, file: string): void {
  try {
    accessSync(file, constants.R_OK);
  } catch (e) {
    throw new BusConfigError(
      `${flag} ${file}: cannot read it (${(e as NodeJS.ErrnoException).code ?? "error"})`,
    );
  }
}

function readSecret(flag: string, file: string): Buffer {
  try {
    return readFileSync(file);
  } catch (e) {
    throw new BusConfigError(
      `${flag} ${file}: cannot read it (${(e as NodeJS.ErrnoException).code ?? "error"})`,
    );
  }
}
