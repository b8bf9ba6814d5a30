/**
 * The hono app of `tandem serve`, separate from the Node server so tests and benches can mount it
 * on any listener. A thin adapter (STYLE habit 9): every route validates, calls the runtime or
 * the broker, and maps results to JSON; nothing here keeps question state.
 *
 * Routes: `/thread…`, `/question…`, `/event` need the bearer token (`/event` also accepts
 * `?token=`); `/` (the web page, its assets) and `/openapi.json` are public and hold no data;
 * `/reply/<token>` takes a reply link's token instead (routes/reply.ts), never the bearer token.
 * CORS stays closed: no Access-Control-Allow-* header is ever sent, so other origins' pages cannot
 * read responses. Bodies above `maxBodyBytes` get 413 before they are read in full.
 */
import { Hono } from "hono";
import { HTTP_LIMITS } from "../../protocol/http.js";
import type { Runtime } from "../../runtime/core.js";
import { StoreError, ThreadInUseError } from "../../runtime/errors.js";
import { maskRequestPath, maskSecrets } from "../../util/log.js";
import { bearerAuth } from "./auth.js";
import { fail, tooLarge } from "./errors.js";
import { openApiDocument } from "./openapi.js";
import { checkpointRoutes } from "./routes/checkpoints.js";
import { questionRoutes } from "./routes/questions.js";
import { replyRoutes } from "./routes/reply.js";
import { skillRoutes } from "./routes/skills.js";
import { threadRoutes } from "./routes/threads.js";
import { type EventStreamOptions, eventStream } from "./sse.js";
import { webRoutes } from "./web/index.js";

export interface HttpAppOptions extends EventStreamOptions {
  /** Bearer token required on API routes. */
  token: string;
  /** cwd of threads created without one (default `process.cwd()`). */
  defaultCwd?: string;
  /** Request body limit in bytes (default 1 MiB). */
  maxBodyBytes?: number;
  /** Version shown in the OpenAPI document. */
  version?: string;
  /** Mounts middleware and routes ahead of the API's (after auth): cluster routing, docs/scale-out.md. */
  extend?: (app: Hono) => void;
}

export function createHttpApp(runtime: Runtime, opts: HttpAppOptions): Hono {
  const app = new Hono();
  const maxBody = opts.maxBodyBytes ?? HTTP_LIMITS.maxBodyBytes;

  app.use("*", async (c, next) => {
    await next();
    c.header("X-Content-Type-Options", "nosniff");
    c.header("Referrer-Policy", "no-referrer");
    if (!c.res.headers.has("cache-control")) c.header("Cache-Control", "no-store");
  });
  // Early 413 when content-length says so; readBody also counts bytes of chunked bodies.
  app.use("*", async (c, next) => {
    const length = Number(c.req.header("content-length") ?? 0);
    if (length > maxBody) return tooLarge(c, maxBody);
    await next();
  });

  const auth = bearerAuth({ token: opts.token });
  app.use("/thread", auth);
  app.use("/thread/*", auth);
  app.use("/question", auth);
  app.use("/skills", auth);
  app.use("/question/*", auth);
  app.use("/event", bearerAuth({ token: opts.token, queryParam: "token" }));
  opts.extend?.(app);

  app.route(
    "/thread",
    threadRoutes(runtime, { defaultCwd: opts.defaultCwd ?? process.cwd(), maxBodyBytes: maxBody }),
  );
  app.route("/thread", checkpointRoutes(runtime, { maxBodyBytes: maxBody }));
  app.route("/question", questionRoutes(runtime, { maxBodyBytes: maxBody }));
  app.route("/skills", skillRoutes(runtime));
  // No bearer token: a reply link's own token is its one credential (routes/reply.ts).
  app.route("/reply", replyRoutes(runtime));
  app.get("/event", (c) => eventStream(c, runtime, opts));
  app.get("/openapi.json", (c) => c.json(openApiDocument(opts.version ?? "0.0.0")));
  app.route("/", webRoutes());

  app.notFound((c) =>
    fail(c, 404, "not_found", `no route ${c.req.method} ${c.req.path}; see GET /openapi.json`),
  );
  app.onError((err, c) => {
    // Another process drives the thread (its lease): a conflict the client can act on.
    if (err instanceof ThreadInUseError) return fail(c, 409, "thread_in_use", err.message);
    // This node lost the thread's lease to another node (docs/scale-out.md): nothing was written.
    if (StoreError.isInstance(err) && err.code === "fenced") return fail(c, 409, "lease_lost", err.message);
    // The store is out of reach (a database cut off or restarting): nothing was done, retry.
    if (StoreError.isInstance(err) && err.code === "unavailable") {
      c.header("retry-after", "1");
      return fail(c, 503, "store_unavailable", `${err.message}; nothing was done, retry shortly`);
    }
    process.emitWarning(
      `tandem serve: ${c.req.method} ${maskSecrets(maskRequestPath(c.req.path))} failed: ${err.message}`,
    );
    return fail(c, 500, "internal", `the server failed to handle the request: ${err.message}`);
  });
  return app;
}
