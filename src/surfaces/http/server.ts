/**
 * Binds the HTTP app to a Node server. Used by `tandem serve`, tests and benches.
 *
 * Contract: resolves once listening (port 0 picks a free port, reported in `port`/`url`).
 * `close()` stops accepting, ends open connections (SSE streams included, which removes their
 * bus listeners and responder registrations) and resolves when the server is closed. It does not
 * shut the runtime down; the caller owns it.
 */
import type { Server } from "node:http";
import type { AddressInfo } from "node:net";
import { serve } from "@hono/node-server";
import type { Runtime } from "../../runtime/core.js";
import { createHttpApp, type HttpAppOptions } from "./app.js";

export interface HttpServerOptions extends HttpAppOptions {
  port?: number;
  /** Interface to bind (default 127.0.0.1). */
  host?: string;
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
  return new Promise((resolve, reject) => {
    const server = serve(
      { fetch: app.fetch, port: opts.port ?? 0, hostname: host, overrideGlobalObjects: false },
      (info: AddressInfo) => {
        server.off("error", reject);
        const shown = info.family === "IPv6" ? `[${info.address}]` : info.address;
        resolve({
          url: `http://${shown}:${info.port}`,
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
    server.once("error", reject);
  });
}
