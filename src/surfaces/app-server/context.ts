/**
 * What a method handler gets (`Ctx`): the app server's state the handlers read, and the client
 * connection the request came on. Types only: handlers name the server through this module, never
 * through server.ts (which imports them), so the handler files import nothing that imports them.
 */
import type { Runtime } from "../../runtime/core.js";
import type { EventMapper, Waiting } from "./mapping.js";
import type { ClientSession } from "./session.js";

/** The app server as its handlers see it (server.ts `AppServer` implements it). */
export interface ServerContext {
  readonly runtime: Runtime;
  readonly opts: { readonly version: string; readonly home: string };
  readonly mapper: EventMapper;
  /** The last `mcp.status` of each MCP server, whichever thread started it. */
  readonly mcpStatus: ReadonlyMap<string, { status: "ready" | "failed"; error?: string }>;
  /** What the thread's pending requests wait for (thread status flags). */
  waiting(threadId: string): Waiting;
  /** The context window of the thread's model, when known. */
  contextWindow(threadId: string): number | undefined;
  /** Sends a notification to every initialized session. */
  broadcast(method: string, params: Record<string, unknown>): void;
  /** Sends a notification to every session attached to the thread, and to `also`. */
  notifyThread(threadId: string, method: string, params: Record<string, unknown>, also?: ClientSession): void;
}

export interface Ctx {
  server: ServerContext;
  session: ClientSession;
}
