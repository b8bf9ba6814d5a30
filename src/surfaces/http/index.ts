/**
 * `tandem serve` (requirements S4): the HTTP API, the SSE event stream and the web page over one runtime.
 *
 *   tandem serve [--port N] [--host H] [--token T] [-c key=value…] [-m model]
 *
 * Contract:
 * - Binds 127.0.0.1 by default; a `--host` outside loopback (127.0.0.0/8, ::1, localhost) exposes
 *   it, with a warning on stderr.
 * - Answers only requests whose Host is one of its names (server.ts): the bind's, loopback names
 *   on a loopback bind, and each `--allow-host NAME[:PORT]` (repeatable; a malformed one exits 2).
 * - The token, `--lan`, `--tls-cert/--tls-key` and what is printed to open the page are
 *   serve-access.ts's: the token comes from `--token`, else `TANDEM_SERVE_TOKEN`, else
 *   `$TANDEM_HOME/serve-token` (kept across restarts).
 * - stdout gets two lines, `tandem serve listening on <url>` and `open <url>/#token=…` (the page
 *   reads the token from the fragment, which browsers never send to a server), then a QR code on
 *   a terminal or with `--qr`/`--lan`.
 * - SIGINT/SIGTERM: a cluster node first drains (up to DRAIN_TIMEOUT_MS); stop accepting, then the
 *   shared shutdown (surfaces/shared/startup.ts: pending questions stay pending in the store for
 *   the next process, Q11), close open connections, leave the cluster.
 * Exit codes: 130/143 after SIGINT/SIGTERM, 1 when the listener cannot start, 2 on bad usage; a
 * runtime (or a `--bus` cluster) that cannot start exits as startup.ts says (1 without an API
 * key, 2 for configuration).
 */
import { parseArgs } from "node:util";
import type { Hono } from "hono";
import { BUS_FLAGS, type BusFlagValues, busSettings, busUsage } from "../../cluster/bus-connect.js";
import type { ClusterNode } from "../../cluster/node.js";
import { tandemHome } from "../../config/load.js";
import type { Runtime } from "../../runtime/core.js";
import { parseAllowHost } from "../../util/allowed-hosts.js";
import { argError } from "../../util/cli-args.js";
import { isLoopbackHost } from "../../util/loopback.js";
import { DEFAULT_GRACE_MS } from "../../util/signals.js";
import { RUNTIME_FLAGS, runSurface, STORE_FLAGS, tandemVersion } from "../shared/startup.js";
import { ACCESS_FLAGS, ACCESS_USAGE, type AccessFlagValues, announce, serveAccess } from "./serve-access.js";
import { startHttpServer } from "./server.js";

export { createHttpApp, type HttpAppOptions } from "./app.js";
export { type HttpServer, type HttpServerOptions, startHttpServer } from "./server.js";

export const SERVE_USAGE = `Usage: tandem serve [--port N] [--host H | --lan] [--allow-host NAME…] [--token T | --rotate-token]
                   [--tls-cert FILE --tls-key FILE] [--qr] [--responder] [--store URL]
                   [--node-id ID] [--bus nats://… [bus options]] [-c key=value…] [-m model]

  --port N     port to listen on (default 0: a free port, printed at start)
  --host H     interface to bind (default 127.0.0.1; anything else exposes the server)
  --allow-host NAME  a name you reach the server by (tandem.example.com, or NAME:PORT for that
               port only; repeatable). Requests for any other Host get 421: the bind address and,
               on loopback, localhost / 127.0.0.1 / [::1] are always answered (DNS rebinding)
${ACCESS_USAGE}
  --responder  questions may wait for API clients that poll GET /question (without it, only
               an open web page or an SSE ?responder= connection counts as someone to answer)
  --store URL  where threads are stored: a SQLite file path or postgres://user@host/db
               (default: store.url in config, else $TANDEM_HOME/state.db; see docs/scale-out.md)
  --node-id ID this node's name on the threads it owns (PostgreSQL store; default: the host name)
  --bus URL    join a cluster over NATS (nats://host:4222; needs a postgres:// --store): requests
               for threads another node owns go to it, every thread's events reach every node,
               a dead node's threads are taken over; adds /healthz, /readyz and /metrics. Every
               node needs the same --token (or TANDEM_SERVE_TOKEN): bus messages are sealed with it
${busUsage(15)}
  -c key=val   override a config setting (repeatable)
  -m model     model for new threads
  --log-file FILE  write the debug log to FILE (level: $TANDEM_LOG, else debug; README "Debugging")`;

export async function runServe(argv: string[]): Promise<number> {
  const err = (s: string) => process.stderr.write(`tandem serve: ${s}\n`);
  let v: BusFlagValues &
    AccessFlagValues & {
      port?: string;
      host?: string;
      "allow-host"?: string[];
      token?: string;
      config?: string[];
      model?: string;
      help?: boolean;
      responder?: boolean;
      store?: string;
      "node-id"?: string;
      "log-file"?: string;
    };
  try {
    v = parseArgs({
      args: argv,
      options: {
        port: { type: "string" },
        host: { type: "string" },
        "allow-host": { type: "string", multiple: true },
        token: { type: "string" },
        ...RUNTIME_FLAGS,
        help: { type: "boolean", short: "h" },
        responder: { type: "boolean" },
        ...STORE_FLAGS,
        ...ACCESS_FLAGS,
        ...BUS_FLAGS,
      },
    }).values;
  } catch (e) {
    err(`${argError(e)}\n\n${SERVE_USAGE}`);
    return 2;
  }
  if (v.help) {
    process.stdout.write(`${SERVE_USAGE}\n`);
    return 0;
  }
  const port = v.port === undefined ? 0 : Number(v.port);
  if (!Number.isInteger(port) || port < 0 || port > 65535) {
    err(`--port must be an integer from 0 to 65535, got "${v.port}"`);
    return 2;
  }
  let allowedHosts: string[];
  try {
    allowedHosts = (v["allow-host"] ?? []).map(parseAllowHost);
  } catch (e) {
    err((e as Error).message);
    return 2;
  }
  let bus: ReturnType<typeof busSettings>;
  try {
    bus = busSettings(v, process.env);
  } catch (e) {
    err((e as Error).message);
    return 2;
  }

  // Last of the checks: a new token is written to the home.
  const access = serveAccess(v, process.env, tandemHome());
  if ("error" in access) {
    err(access.error);
    return 2;
  }
  for (const note of access.notes) err(note);
  const { host, token } = access;

  // A generated token is this process's alone: other nodes could not open its bus frames.
  const clusterToken = v.token ?? (process.env.TANDEM_SERVE_TOKEN || undefined);
  const joinCluster = async (runtime: Runtime, log: (line: string) => void) => {
    const { ClusterNode } = await import("../../cluster/node.js");
    return ClusterNode.start(runtime, { bus: bus!, clusterToken, node: v["node-id"], log });
  };
  return runSurface(
    {
      name: "serve",
      flags: v,
      ...(bus ? { cluster: joinCluster } : {}),
      // A draining cluster node may wait for working turns before it hands them over.
      graceMs: bus ? DRAIN_TIMEOUT_MS + DEFAULT_GRACE_MS : DEFAULT_GRACE_MS,
    },
    async ({ runtime, cluster, stopped, log, after }) => {
      // --responder: API clients that poll GET /question answer questions, so every thread of this
      // server may wait for them even with no page or SSE responder connected (Q3).
      if (v.responder) runtime.questions.attach("all", { kind: "http", id: "--responder" });
      const { mountCluster } = cluster
        ? await import("../../cluster/routes.js")
        : { mountCluster: undefined };
      const extend = (app: Hono) => {
        if (!cluster || !mountCluster) return;
        mountCluster(app, runtime, cluster);
        cluster.attach(app, token);
      };

      let server: Awaited<ReturnType<typeof startHttpServer>>;
      try {
        server = await startHttpServer(runtime, {
          port,
          host,
          allowedHosts,
          token,
          version: tandemVersion(),
          extend,
          eventLog: cluster?.events,
          tls: access.tls,
        });
      } catch (e) {
        log(`cannot listen on ${host}:${port}: ${(e as Error).message}`);
        return 1;
      }
      // 127.0.0.0/8, ::1 and localhost reach this machine only: no warning (util/loopback.ts).
      if (!isLoopbackHost(host))
        log(
          `warning: listening on ${host}, not just this machine. Anyone who can reach it and has the token can run commands as you.`,
        );
      process.stdout.write(`tandem serve listening on ${server.url}\n`);
      // Notifications link here (README "Notifications"): the origin only, never the token.
      runtime.hooks.serveUrl = new URL(server.url).origin;
      announce(access, v, server.port, { stdout: process.stdout, err: log });

      await stopped;
      if (cluster) await drain(runtime, cluster, log);
      // Closed while the runtime shuts down, which releases this node's leases: other nodes take
      // threads with pending questions (re-asked).
      const closing = server.close();
      after(() => closing);
      return 0;
    },
  );
}

/** How long a draining node waits for working turns before handing their threads over. */
const DRAIN_TIMEOUT_MS = 30_000;

/**
 * Graceful drain (cluster): /readyz turns 503 so the balancer stops sending requests, turns
 * that are working (not waiting on a person) get up to DRAIN_TIMEOUT_MS to finish, then the
 * caller shuts down, which releases the leases with nothing more written: another node re-asks
 * the pending questions and goes on with a turn still working (a command it cut off is
 * recorded as aborted there).
 */
async function drain(runtime: Runtime, cluster: ClusterNode, err: (s: string) => void): Promise<void> {
  cluster.draining = true;
  const end = Date.now() + DRAIN_TIMEOUT_MS;
  const working = () => runtime.threads.loaded().filter((t) => t.status === "running");
  if (working().length) err(`draining: waiting for ${working().length} working turn(s) to finish`);
  while (working().length && Date.now() < end) await new Promise((r) => setTimeout(r, 100));
  if (working().length)
    err(`drain timeout: handing ${working().length} working turn(s) over to another node mid-turn`);
}
