/**
 * Request dispatch: method name → params schema → handler. Codex v2 methods live in threads.ts,
 * manage.ts, turns.ts and info.ts; `initialize` and the Tandem `tandem/question/*` additions live here.
 *
 * Contract:
 * - Unknown method → -32601, never a fake success; for Codex methods clients commonly call, the
 *   message says why Tandem does not support them. Any method but `initialize` before `initialize` → -32002.
 *   Params failing their zod schema → -32602 with one "path: message" per issue (and the issues as
 *   `data`). Handler refusals are `RpcError`s with the codes of rpc.ts.
 * - Handlers are synchronous: they call the runtime and return the result, so the response always
 *   precedes the notifications the call caused (see rpc.ts).
 * - Broker refusals keep the broker's message and get one code per reason (`data.reason`).
 */
import { platform, release } from "node:os";
import {
  InitializeParams,
  QuestionDeclineParams,
  QuestionListParams,
  QuestionReplyParams,
  QuestionTouchParams,
} from "../../protocol/app-server.js";
import { BRANCH_METHODS } from "./branches.js";
import { COMMAND_EXEC_METHODS } from "./command-exec.js";
import { COMPACT_METHODS } from "./compact.js";
import { CONFIG_WRITE_METHODS } from "./config-write.js";
import type { ServerContext } from "./context.js";
import { FUZZY_SEARCH_METHODS } from "./fuzzy-search.js";
import { INFO_METHODS } from "./info.js";
import { INVENTORY_METHODS } from "./inventory.js";
import { MANAGE_METHODS } from "./manage.js";
import { brokerError, type Method, method, parseParams } from "./method.js";
import { REVIEW_METHODS } from "./review.js";
import { ErrorCode, RpcError } from "./rpc.js";
import type { ClientSession } from "./session.js";
import { SETTINGS_METHODS } from "./settings.js";
import { SHELL_COMMAND_METHODS } from "./shell-command.js";
import { inUseOr, THREAD_METHODS } from "./threads.js";
import { TURN_METHODS } from "./turns.js";

const initialize = method(InitializeParams, ({ server, session }, p) => {
  if (session.initialized)
    throw new RpcError(
      ErrorCode.AlreadyInitialized,
      "already initialized; send initialize once per connection",
    );
  session.initialized = true;
  session.clientName = p.clientInfo.name;
  session.setOptOut(p.capabilities?.optOutNotificationMethods ?? []);
  session.tandemNotifications = wantsTandem(p.capabilities?.extensions);
  const os =
    process.platform === "darwin" ? "macos" : process.platform === "win32" ? "windows" : process.platform;
  return {
    userAgent: userAgent(server.opts.version, p.clientInfo),
    codexHome: server.opts.home,
    platformFamily: process.platform === "win32" ? "windows" : "unix",
    platformOs: os,
  };
});

/**
 * Codex clients read the server's version from the user agent's leading `name/version` and warn
 * when it is older than theirs (Tandem's 0.x would read as "an old Codex"). So the agent starts
 * with the client's own `name/version`, as Codex's server does, and says what serves it in the
 * comment: `codex-tui/0.171.0 (tandem 0.1.0; Linux 6.1.0; x64)`.
 */
export function userAgent(version: string, client: { name: string; version: string }): string {
  return `${client.name}/${client.version} (tandem ${version}; ${platform()} ${release()}; ${process.arch})`;
}

/**
 * Whether the client opted into Tandem's own notifications (`tandem/question/*`): `initialize`
 * `capabilities.extensions.tandem` present (any value but false/null). A Codex client never
 * gets them.
 */
function wantsTandem(extensions: Record<string, unknown> | null | undefined): boolean {
  const v = extensions?.tandem;
  return v !== undefined && v !== null && v !== false;
}

const QUESTION_METHODS: Record<string, Method<any>> = {
  "tandem/question/list": method(QuestionListParams, ({ server }, p) => ({
    requests: server.runtime.questions.list(p.threadId ? { threadId: p.threadId } : {}),
  })),
  "tandem/question/reply": method(QuestionReplyParams, ({ server, session }, p) => {
    const answers = Object.fromEntries(
      Object.entries(p.answers).map(([id, a]) => [id, { ...a, selected: a.selected ?? [] }]),
    );
    const r = server.runtime.questions.reply(p.threadId, p.requestId, { answers }, session.responder);
    if (!r.ok) throw brokerError(r);
    return { outcome: r.outcome, duplicate: r.duplicate ?? false };
  }),
  "tandem/question/decline": method(QuestionDeclineParams, ({ server, session }, p) => {
    const r = server.runtime.questions.decline(
      p.threadId,
      p.requestId,
      session.responder,
      p.reason ?? undefined,
    );
    if (!r.ok) throw brokerError(r);
    return { outcome: r.outcome, duplicate: r.duplicate ?? false };
  }),
  "tandem/question/touch": method(QuestionTouchParams, ({ server, session }, p) => {
    const r = server.runtime.questions.touch(p.requestId, session.responder);
    if (!r.ok) throw brokerError(r);
    return { deadline: r.deadline };
  }),
};

const METHODS: Record<string, Method<any>> = {
  initialize,
  ...THREAD_METHODS,
  ...MANAGE_METHODS,
  ...TURN_METHODS,
  ...INFO_METHODS,
  ...SETTINGS_METHODS,
  ...INVENTORY_METHODS,
  ...QUESTION_METHODS,
  ...COMPACT_METHODS,
  ...SHELL_COMMAND_METHODS,
  ...REVIEW_METHODS,
  ...FUZZY_SEARCH_METHODS,
  ...BRANCH_METHODS,
  ...CONFIG_WRITE_METHODS,
  ...COMMAND_EXEC_METHODS,
};

/**
 * Codex methods clients commonly call that Tandem does not implement, with why (appended to the
 * -32601 message). Any other unknown method gets the plain message.
 */
const UNSUPPORTED: Record<string, string> = {
  "account/login/start": "Tandem has no login; it reads the API key from the environment",
  "account/login/cancel": "Tandem has no login",
  "account/logout": "Tandem has no login; unset the API key in the environment instead",
  "account/rateLimits/read": "Tandem does not track account rate limits",
  "account/usage/read": "Tandem does not track account usage",
  "modelProvider/list": "Tandem serves one provider per process; config/read names it",
  "thread/delete": "Tandem keeps every thread; thread/archive hides one from thread/list",
  "command/exec/write": "Tandem's command/exec has no stdin streaming (streamStdin)",
  "command/exec/resize": "Tandem's command/exec has no terminal (tty)",
  "plugin/list": "Tandem has no plugins",
  "app/list": "Tandem has no apps",
  "experimentalFeature/list": "Tandem has no experimental feature flags",
  "feedback/upload": "Tandem does not upload feedback",
};

export function handleRequest(
  server: ServerContext,
  session: ClientSession,
  name: string,
  params: unknown,
): unknown {
  const m = Object.hasOwn(METHODS, name) ? METHODS[name] : undefined;
  if (!m) {
    const why = Object.hasOwn(UNSUPPORTED, name) ? UNSUPPORTED[name] : undefined;
    throw new RpcError(
      ErrorCode.MethodNotFound,
      why ? `method not found: ${name} is not supported by Tandem (${why})` : `method not found: ${name}`,
    );
  }
  if (!session.initialized && name !== "initialize")
    throw new RpcError(ErrorCode.NotInitialized, `not initialized: send initialize before ${name}`);
  const parsed = parseParams(name, m.params, params);
  // In a cluster a thread another node runs moves here first (runtime.threads.claim).
  const threadId = OPENS_THREAD.has(name) ? (parsed as { threadId?: unknown }).threadId : undefined;
  const claim = typeof threadId === "string" ? server.runtime.threads.claim(threadId) : undefined;
  if (!claim) return m.run({ server, session }, parsed);
  return claim.then(
    () => m.run({ server, session }, parsed),
    (err: unknown) => {
      throw inUseOr(err, ErrorCode.ThreadInUse, threadId as string);
    },
  );
}

/** Methods that open a stored thread on this process (and so claim it first in a cluster). */
const OPENS_THREAD = new Set([
  "thread/resume",
  "turn/start",
  "thread/settings/update",
  "thread/compact/start",
  "thread/shellCommand",
  "thread/fork",
  "thread/revert",
  "thread/rollback",
  "review/start",
]);
