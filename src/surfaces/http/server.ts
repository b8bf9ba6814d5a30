/**
 * Binds the HTTP app to a Node server. Used by `tandem serve`, tests and benches.
 *
 * Contract: resolves once listening (port 0 picks a free port, reported in `port`/`url`); with
 * `tls` it speaks HTTPS only (`url` is https://), and rejects when the certificate or key is bad.
 * `close()` stops accepting, ends open connections (SSE streams included, which removes their
 * bus listeners and responder registrations) and resolves when the server is closed. It does not
 * shut the runtime down; the caller owns it.
 *
 * Before the app sees a request, its `Host` (and an absolute request target's authority) must be
 * one of the server's names (util/allowed-hosts.ts: its bind address, loopback names on a
 * loopback bind, `allowedHosts`); anything else gets 421 `host_not_allowed` before auth and any
 * route: the API, the event stream and the web page stay out of reach of a DNS-rebinding page.
 * Only the cluster's probes (`GET /healthz`, `/readyz`, `/metrics`: no token, no thread data) are
 * exempt, since load balancers call them by whatever address they route through. Requests the
 * app gets in-process (`app.fetch`: a cluster's forwarded requests) are not network requests
 * and are not checked.
 */
import type { Server } from "node:http";
import { createServer as createHttpsServer } from "node:https";
import type { AddressInfo } from "node:net";
import { serve } from "@hono/node-server";
import type { Runtime } from "../../runtime/core.js";
import { type HostPolicy, hostPolicy, hostRefusal } from "../../util/allowed-hosts.js";
import { watchHttpServer } from "../../util/log-wire.js";
import { createHttpApp, type HttpAppOptions } from "./app.js";

export interface HttpServerOptions extends HttpAppOptions {
  port?: number;
  /** Interface to bind (default 127.0.0.1). */
  host?: string;
  /** More Host names to answer (`--allow-host`: `NAME` or `NAME:PORT`), besides the bind's own. */
  allowedHosts?: string[];
  /** Serve HTTPS with this certificate and key (PEM), e.g. for a phone on the LAN (`--tls-cert`). */
  tls?: { cert: string | Buffer; key: string | Buffer };
}

/** Probes a load balancer calls by any address; they need no token and hold no thread data. */
const PROBES = new Set(["/healthz", "/readyz", "/metrics"]);

/** Whether `req` is for this server (see the file comment). */
function forUs(req: Request, policy: HostPolicy | undefined): boolean {
  if (!policy) return false;
  const url = new URL(req.url);
  if ((req.method === "GET" || req.method === "HEAD") && PROBES.has(url.pathname)) return true;
  return policy.allows(req.headers.get("host") ?? undefined) && policy.allows(url.host);
}

export interface HttpServer {
  url: string;
  port: number;
  host: string;
  close(): Promise<void>;
}

export function startHttpServer(runtime: Runtime, opts: HttpServerOptions): Promise<HttpServer> {
  const app = createHttpApp(runtime, opts);
  const host = opts.host ?? "127.0.0.1";
  // Set once listening (port 0 picks the port); until then nothing is for us.
  let policy: HostPolicy | undefined;
  const fetch = (req: Request) => {
    if (forUs(req, policy)) return app.fetch(req);
    const body = hostRefusal(req.headers.get("host") ?? new URL(req.url).host, "tandem serve");
    return Response.json(body, { status: 421, headers: { "cache-control": "no-store" } });
  };
  return new Promise((resolve, reject) => {
    const secure = opts.tls
      ? { createServer: createHttpsServer, serverOptions: { cert: opts.tls.cert, key: opts.tls.key } }
      : {};
    const server = serve(
      { fetch, port: opts.port ?? 0, hostname: host, overrideGlobalObjects: false, ...secure },
      (info: AddressInfo) => {
        server.off("error", reject);
        policy = hostPolicy({ bind: host, port: info.port, allow: opts.allowedHosts });
        const shown = info.family === "IPv6" ? `[${info.address}]` : info.address;
        resolve({
          url: `${opts.tls ? "https" : "http"}://${shown}:${info.port}`,
          port: info.port,
          host,
          close: () =>
            new Promise<void>((done) => {
              const http = server as Server;
              http.close(() => done());
              http.closeAllConnections?.();
            }),
        });
      },
    ) as Server;
    watchHttpServer(server, "http");
    server.once("error", reject);
  });
}
