/**
 * `--listen ws://HOST:PORT`: serves app-server connections over websockets, one JSON message per
 * text frame.
 *
 * Contract:
 * - Port 0 picks a free port; the returned `url` has the real one.
 * - An upgrade whose `Host` is not one of the listener's names (util/allowed-hosts.ts: the listen
 *   address, loopback names on a loopback listener, `allowedHosts`) is refused first, with 421
 *   and a JSON error naming `--allow-host` (DNS rebinding: the same check as `tandem serve`).
 * - An upgrade request carrying an `Origin` header is refused (403) before anything else, as Codex's
 *   app-server does: browsers always send one, so a web page (or a DNS-rebinding attack) cannot
 *   drive the agent; programs (editors, scripts, Codex clients) do not send it.
 * - Then the request must carry `Authorization: Bearer <token>` (ws-auth.ts), else 401 with
 *   `WWW-Authenticate: Bearer`; no websocket is established and the token is never logged.
 * - A non-loopback host (allowed only with an explicit token, see ws-auth.ts) is warned about:
 *   ws:// is not encrypted, so the token crosses the network in clear text.
 * - Frames over `maxBytes` get a JSON-RPC error and the connection stays; frames over 4 × `maxBytes`
 *   are refused by the socket layer (close code 1009), so a peer cannot make the server buffer
 *   without bound.
 * - `close()` closes every client socket and stops listening.
 */
import { once } from "node:events";
import { WebSocketServer } from "ws";
import { type HostPolicy, hostPolicy, hostRefusal } from "../../util/allowed-hosts.js";
import { log } from "../../util/log.js";
import * as WireLog from "../../util/log-wire.js";
import type { AppServer } from "./server.js";
import { DEFAULT_MAX_MESSAGE_BYTES, WebSocketTransport } from "./transport.js";
import { checkUpgrade, isLoopbackHost } from "./ws-auth.js";

export interface WsListener {
  url: string;
  close(): Promise<void>;
}

/** Parses `ws://HOST:PORT`; throws a usage message for anything else. */
export function parseListenUrl(text: string): { host: string; port: number } {
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    throw new Error(`--listen expects stdio:// or ws://HOST:PORT, got "${text}"`);
  }
  if (url.protocol !== "ws:") throw new Error(`--listen expects stdio:// or ws://HOST:PORT, got "${text}"`);
  if (!/:\d+\/?$/.test(text)) throw new Error(`--listen ${text}: give a port (0 picks a free one)`);
  return { host: url.hostname.replace(/^\[|\]$/g, ""), port: url.port === "" ? 80 : Number(url.port) };
}

export async function listenWebSocket(
  server: AppServer,
  where: { host: string; port: number },
  opts: { token: string; maxBytes?: number; log: (line: string) => void; allowedHosts?: string[] },
): Promise<WsListener> {
  if (!opts.token) throw new Error("listenWebSocket needs a token");
  log.secret(opts.token);
  const maxBytes = opts.maxBytes ?? DEFAULT_MAX_MESSAGE_BYTES;
  if (!isLoopbackHost(where.host))
    opts.log(
      `warning: listening on ${where.host}, not loopback; ws:// is not encrypted, so the token and every message cross the network in clear text (an SSH tunnel to 127.0.0.1 avoids that)`,
    );
  // Set once listening (port 0 picks the port).
  let policy: HostPolicy | undefined;
  const wss = new WebSocketServer({
    host: where.host,
    port: where.port,
    maxPayload: maxBytes * 4,
    perMessageDeflate: false,
    verifyClient: (info, callback) => {
      const done = WireLog.upgrade("app-server", info.req, callback);
      const host = info.req.headers.host;
      if (!policy?.allows(host)) {
        opts.log(`refused a websocket for host ${JSON.stringify(host ?? "")} (not a name of this listener)`);
        const body = JSON.stringify(hostRefusal(host, "tandem app-server"));
        return done(false, 421, body, { "Content-Type": "application/json" });
      }
      if (info.origin) {
        opts.log(`refused a websocket from origin ${info.origin} (browser pages may not connect)`);
        return done(false, 403, "browser origins are not accepted");
      }
      const auth = checkUpgrade(info.req.headers, opts.token);
      if (auth.ok) return done(true);
      opts.log(`refused a websocket: ${auth.reason}`);
      done(false, 401, "Unauthorized", { "WWW-Authenticate": 'Bearer realm="tandem app-server"' });
    },
  });
  await Promise.race([
    once(wss, "listening"),
    once(wss, "error").then(([err]) => {
      throw err;
    }),
  ]);
  wss.on("error", (err) => opts.log(`websocket server error: ${err.message}`));
  wss.on("connection", (socket) => {
    server.connect(new WebSocketTransport(socket, maxBytes)).catch((err) => {
      opts.log(`cannot serve a websocket connection: ${(err as Error).message}`);
      socket.terminate();
    });
  });
  const address = wss.address();
  const port = typeof address === "object" && address ? address.port : where.port;
  policy = hostPolicy({ bind: where.host, port, allow: opts.allowedHosts });
  const shownHost = where.host.includes(":") ? `[${where.host}]` : where.host;
  return {
    url: `ws://${shownHost}:${port}`,
    close: () =>
      new Promise<void>((done) => {
        for (const client of wss.clients) client.terminate();
        wss.close(() => done());
      }),
  };
}
