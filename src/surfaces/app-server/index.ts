/**
 * `tandem app-server [--listen stdio:// | ws://HOST:PORT [--ws-token-file F | --ws-token T]] [-c k=v …] [-m model]`
 * (requirements S3).
 *
 * Contract:
 * - stdio (default): one JSON object per line on stdin/stdout; stdout carries protocol messages
 *   only, every log line goes to stderr. EOF on stdin ends the server.
 * - `--listen ws://…`: websockets; prints `app-server listening on ws://HOST:PORT` to stderr once
 *   listening; stdin is not read. Clients must send `Authorization: Bearer <token>` (ws-auth.ts):
 *   the token of `--ws-token-file`/`--ws-token`, else a generated one, printed to stderr just
 *   before the listening line as `app-server token: <token>` (the only place a token is printed).
 *   A non-loopback listener without an explicit token is a usage error. An upgrade whose Host is
 *   not one of the listener's names (ws.ts; `--allow-host NAME[:PORT]` adds names) gets 421.
 * - SIGINT/SIGTERM (or `io.signal`, for in-process use) end the server: connections close, then
 *   the shared shutdown (surfaces/shared/startup.ts: pending questions stay stored for the next
 *   process, Q11; a cluster node leaves); exit code 130/143 (0 for `io.signal` and stdin EOF).
 * - Exit codes: 0 after a clean stop, 1 when it cannot serve, 2 for usage errors; a runtime (or a
 *   `--bus` cluster) that cannot start exits as startup.ts says (1 without an API key, 2 for
 *   configuration).
 */
import { parseArgs } from "node:util";
import {
  BUS_FLAGS,
  BusConfigError,
  type BusFlagValues,
  type BusSettings,
  busSettings,
  busUsage,
} from "../../cluster/bus-connect.js";
import { tandemHome } from "../../config/load.js";
import type { Runtime } from "../../runtime/core.js";
import { parseAllowHost } from "../../util/allowed-hosts.js";
import { argError } from "../../util/cli-args.js";
import {
  type JoinCluster,
  RUNTIME_FLAGS,
  runSurface,
  STORE_FLAGS,
  type StdioSurfaceIO,
  tandemVersion,
} from "../shared/startup.js";
import { AppServer } from "./server.js";
import { DEFAULT_MAX_MESSAGE_BYTES, StdioTransport } from "./transport.js";
import { listenWebSocket, parseListenUrl, type WsListener } from "./ws.js";
import { resolveWsToken, type WsToken } from "./ws-auth.js";

export { AppServer } from "./server.js";

export const APP_SERVER_USAGE = `Usage: tandem app-server [--listen stdio:// | ws://127.0.0.1:PORT [--ws-token-file FILE]] [-c key=value]... [-m MODEL]

Serves the Codex app-server v2 JSON-RPC protocol (plus tandem/* methods):
  stdio (default)       one JSON message per line on stdin/stdout
  --listen ws://H:P     websockets, one message per text frame (port 0 picks a free port); clients
                        send "Authorization: Bearer <token>"; browser pages (Origin) are refused
  --ws-token-file FILE  the websocket token: FILE's content, trimmed (16+ characters)
  --ws-token TOKEN      the token on the command line (visible to other users in ps: prefer a file)
                        Without either, a token is generated and printed on stderr; a listener
                        that is not loopback requires one of them
  --allow-host NAME     a name clients reach the websocket by (NAME or NAME:PORT; repeatable):
                        upgrades for any other Host get 421 (the listen address and, on
                        loopback, localhost / 127.0.0.1 / [::1] are always accepted)
  -c, --config k=v      override a configuration value
  -m, --model MODEL     default model for new threads
  --store URL           where threads are stored: a SQLite file path or postgres://user@host/db
  --bus URL             join a cluster of tandem nodes over NATS (needs a postgres:// --store): a
                        thread another node runs moves here when a client opens it, and the other
                        nodes' HTTP requests for threads running here are served (docs/scale-out.md);
                        needs $TANDEM_SERVE_TOKEN, the cluster's token (bus messages are sealed with it)
${busUsage(24)}
  --node-id ID          this node's name on the threads it runs (default: the host name)
  --log-file FILE       write the debug log to FILE (level: $TANDEM_LOG, else debug; README "Debugging")`;

export interface AppServerIO extends StdioSurfaceIO {
  maxMessageBytes?: number;
  /**
   * Joins a cluster for `--bus` (surfaces/shared/startup.ts JoinCluster; the CLI passes
   * src/main/cluster-join.ts: surfaces do not import each other).
   */
  joinCluster?: JoinCluster;
}

export async function runAppServer(argv: string[], io: Partial<AppServerIO> = {}): Promise<number> {
  const stdin = io.stdin ?? process.stdin;
  const stdout = io.stdout ?? process.stdout;
  const stderr = io.stderr ?? process.stderr;
  const env = io.env ?? process.env;

  let args: BusFlagValues & {
    listen?: string;
    "ws-token"?: string;
    "ws-token-file"?: string;
    "allow-host"?: string[];
    config?: string[];
    model?: string;
    store?: string;
    "node-id"?: string;
    "log-file"?: string;
    help?: boolean;
  };
  let where: { host: string; port: number } | undefined;
  let bus: BusSettings | undefined;
  let wsToken: WsToken | undefined;
  let allowedHosts: string[] = [];
  try {
    args = parseArgs({
      args: argv,
      options: {
        listen: { type: "string" },
        "ws-token": { type: "string" },
        "ws-token-file": { type: "string" },
        "allow-host": { type: "string", multiple: true },
        ...RUNTIME_FLAGS,
        ...STORE_FLAGS,
        ...BUS_FLAGS,
        help: { type: "boolean", short: "h" },
      },
    }).values;
    if (args.listen !== undefined && args.listen !== "stdio://") where = parseListenUrl(args.listen);
    if (!args.help)
      wsToken = resolveWsToken(where?.host, { token: args["ws-token"], tokenFile: args["ws-token-file"] });
    if (!args.help) bus = busSettings(args, env);
    if (args["allow-host"] && !where) throw new Error("--allow-host applies only with --listen ws://…");
    allowedHosts = (args["allow-host"] ?? []).map(parseAllowHost);
  } catch (err) {
    if (err instanceof BusConfigError) {
      stderr.write(`tandem app-server: ${err.message}\n`);
      return 2;
    }
    stderr.write(`tandem app-server: ${argError(err)}\n\n${APP_SERVER_USAGE}\n`);
    return 2;
  }
  if (args.help) {
    stdout.write(`${APP_SERVER_USAGE}\n`);
    return 0;
  }

  const home = env.TANDEM_HOME || undefined;
  const version = tandemVersion();
  const joinCluster = io.joinCluster;
  const cluster =
    bus &&
    (async (runtime: Runtime, log: (line: string) => void) => {
      if (!joinCluster) throw new Error("--bus: this entry point cannot join a cluster");
      return joinCluster(runtime, {
        bus,
        clusterToken: env.TANDEM_SERVE_TOKEN || undefined,
        node: args["node-id"],
        version,
        log,
      });
    });
  return runSurface(
    { name: "app-server", flags: args, io: { ...io, stderr }, ...(cluster ? { cluster } : {}) },
    async ({ runtime, stopped, log }) => {
      const server = new AppServer({ runtime, version, home: home ?? tandemHome(), log });
      let listener: WsListener | undefined;
      try {
        const maxBytes = io.maxMessageBytes ?? DEFAULT_MAX_MESSAGE_BYTES;
        if (where && wsToken) {
          listener = await listenWebSocket(server, where, {
            token: wsToken.token,
            maxBytes,
            log,
            allowedHosts,
          });
          // The one deliberate print of a token: a generated one nobody else could know.
          if (wsToken.generated) stderr.write(`app-server token: ${wsToken.token}\n`);
          stderr.write(`app-server listening on ${listener.url}\n`);
          await stopped;
        } else {
          const session = await server.connect(new StdioTransport(stdin, stdout, maxBytes));
          await Promise.race([stopped, session.rpc.closed]);
        }
        return 0;
      } catch (err) {
        log(`cannot serve: ${(err as Error).message}`);
        return 1;
      } finally {
        await listener?.close();
        await server.close();
      }
    },
  );
}
