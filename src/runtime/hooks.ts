/**
 * The runtime's side of user hooks (README "Hooks", "Notifications"; the hooks themselves live
 * in src/hooks/). Per thread, before each turn: load the hooks that apply to its cwd, ask the
 * user once to trust project hooks files (an internal question through the broker, like an
 * approval), then fire SessionStart (first turn in this process) and UserPromptSubmit. It
 * fires PreToolUse/PostToolUse from the tool registry, PermissionRequest from approvals, Stop /
 * SubagentStop when a turn ends, PreCompact/PostCompact around compaction and Notification
 * (plus the `notify` program) from the bus.
 *
 * Contract:
 * - A project hooks file (anything under the project root, which the model can write) never
 *   runs unless the user trusted its exact content: answered "Trust" here (remembered by
 *   SHA-256 under $TANDEM_HOME, hooks/trust.ts) or `tandem hooks trust`. With nobody to answer,
 *   untrusted files are skipped and one `hook.warning` says so. A changed file asks again.
 * - Hooks run on the host with the environment policy applied (no provider key, no
 *   `*KEY*`/`*SECRET*`/`*TOKEN*`), in the thread's cwd, each under its timeout.
 * - A failing hook is a `hook.warning` event, never a failed turn; only exit 2 or a decision blocks.
 */

import { createHash } from "node:crypto";
import { delimiter, isAbsolute, resolve, sep } from "node:path";
import type { ResolvedProvider } from "../config/load.js";
import type { Settings } from "../config/schema.js";
import {
  type CommonInput,
  createToolHooks,
  createTrustStore,
  deepLink,
  fireHooks,
  type HookDecision,
  type HookDef,
  type HookEvent,
  type HookSource,
  type LoadedHooks,
  loadHooks,
  notificationFor,
  notifyPayload,
  type TrustStore,
} from "../hooks/index.js";
import { hostProgram, runHost } from "../host/run.js";
import type { Event, Stamped } from "../protocol/events.js";
import { type MessageItem, messageText } from "../protocol/items.js";
import type { QuestionOutcome, QuestionRequest } from "../protocol/questions.js";
import { requestIdFor } from "../questions/broker.js";
import { questionText } from "../questions/text-reply.js";
import { applyEnvPolicy } from "../tools/exec/env-policy.js";
import type { ToolHooks } from "../tools/registry.js";
import type { ApprovalAsk, ToolContext } from "../tools/types.js";
import { AbortError } from "../util/abort.js";
import { projectDirs } from "./context.js";
import type { ApprovingThread } from "./host.js";
import type { ActiveTurn, Thread } from "./thread.js";

const TRUST_LABEL = "Trust and run them";
/** Most characters of commands a trust question shows; a longer file is reviewed with the CLI. */
const TRUST_SHOWN_CHARS = 6000;
const DISTRUST_LABEL = "Do not run them";
const MAX_STOP_CONTINUATIONS = 5;

interface ThreadHookState {
  hooks: HookDef[];
  cwd: string;
  root: string;
  started: boolean;
  reported: Set<string>;
  /** The user's input of the current turn (Codex's `input-messages`). */
  inputs: string[];
}

/** What user hooks need of the runtime (core.ts builds it). */
export interface HooksHost {
  readonly settings: Settings;
  readonly provider: ResolvedProvider;
  thread(id: string): Thread | undefined;
  readonly responders: { has(threadId: string): boolean };
  ask(request: QuestionRequest, signal: AbortSignal): Promise<QuestionOutcome>;
  subscribe(listener: (e: Stamped) => void): void;
  /** Publishes an event of a thread not loaded here. */
  publish(event: Event): void;
  addToolHooks(hooks: ToolHooks): void;
  /** A reply link's token for a waiting request, if it may be offered one (reply-links.ts). */
  replyLink(request: QuestionRequest): string | undefined;
}

/** The hooks facet of the Runtime's API (`runtime.hooks`). */
export interface HooksApi {
  /** What applies in `cwd` (app-server `hooks/list`). */
  list(cwd: string): LoadedHooks;
  /** `http://HOST:PORT` of a `tandem serve` in this process: notifications link into its page. */
  serveUrl: string | undefined;
}

export class RuntimeHooks implements HooksApi {
  private readonly trustStore: TrustStore | undefined;
  private readonly state = new Map<string, ThreadHookState>();
  /** Sources the user trusted or refused in this process (`path\0sha256`). */
  private readonly decided = new Map<string, boolean>();
  /** `http://HOST:PORT` of a `tandem serve` in this process (notification deep links). */
  serveUrl: string | undefined;
  readonly toolHooks: ToolHooks;
  /** Hooks and `notify` runs fired from events, still running (bounded by their timeouts). */
  private readonly background = new Set<Promise<unknown>>();

  constructor(
    private readonly rt: HooksHost,
    private readonly home: string | undefined,
  ) {
    this.trustStore = home ? createTrustStore(home) : undefined;
    this.toolHooks = createToolHooks({
      fire: (ctx, event, input, names) => this.fireIn(ctx.threadId, ctx.turnId, event, input, names, ctx),
      interrupt: (id, reason) => void this.rt.thread(id)?.interrupt(reason),
    });
    rt.subscribe((s: Stamped) => this.onEvent(s.event));
    rt.addToolHooks(this.toolHooks);
  }

  /** What applies in `cwd` (app-server `hooks/list`). */
  list(cwd: string): LoadedHooks {
    return loadHooks(this.loadOptions(projectDirs(cwd)[0]));
  }

  private loadOptions(root: string) {
    return {
      home: this.home ?? "",
      projectRoot: root,
      inline: this.rt.settings.hooks,
      trust: this.trustStore ?? { status: () => "untrusted" as const, trust: () => {} },
    };
  }

  private env(root: string): Record<string, string> {
    const policy = {
      ...this.rt.settings.shell_environment_policy,
      credential_vars: [this.rt.provider.envKey],
    };
    const env = applyEnvPolicy(process.env, policy);
    // A bare program name in a hook never resolves to something the model put in the project.
    if (env.PATH !== undefined) env.PATH = trustedPath(env.PATH, root);
    return { ...env, CLAUDE_PROJECT_DIR: root, TANDEM_PROJECT_DIR: root };
  }

  private warn(thread: Thread | undefined, threadId: string, turnId: string | undefined, message: string) {
    const st = this.state.get(threadId);
    if (st) {
      if (st.reported.has(message)) return;
      st.reported.add(message);
    }
    const event: Event = {
      type: "hook.warning",
      thread_id: threadId,
      ...(turnId ? { turn_id: turnId } : {}),
      message,
    };
    if (thread) thread.emit(event);
    else this.rt.publish(event);
  }

  /**
   * Loads the thread's hooks for this turn and settles trust (see the module contract); then
   * SessionStart and UserPromptSubmit. Blocked prompts are taken out of `turn.pending`.
   * Undefined when there is nothing to ask or fire, so the turn starts in the same tick (a
   * resumed turn re-asks its questions at once); else the promise rejects with an AbortError
   * when the user cancelled the trust question.
   */
  beforeTurn(thread: Thread, turn: ActiveTurn): Promise<void> | undefined {
    // A client's helper thread (a title writer) runs no hooks and asks nothing.
    if (thread.ephemeral) return undefined;
    const cwd = turn.options.cwd ?? thread.record.cwd;
    const root = projectDirs(cwd)[0];
    const loaded = loadHooks(this.loadOptions(root));
    const prev = this.state.get(thread.id);
    const st: ThreadHookState = {
      hooks: [],
      cwd,
      root,
      started: prev?.started ?? false,
      reported: prev?.reported ?? new Set(),
      inputs: turn.pending.map((p) => messageText(p.item)),
    };
    this.state.set(thread.id, st);
    for (const w of loaded.warnings) this.warn(thread, thread.id, turn.id, w);
    for (const e of loaded.errors) this.warn(thread, thread.id, turn.id, `hooks file skipped: ${e.message}`);
    const key = (s: HookSource) => `${s.path}\0${s.sha256}`;
    const open = loaded.sources.filter(
      (s) => s.scope === "project" && s.trust !== "trusted" && !this.decided.has(key(s)),
    );
    const runs = (s: HookSource) =>
      s.scope === "user" || s.trust === "trusted" || this.decided.get(key(s)) === true;
    st.hooks = loaded.hooks.filter((h) => runs(h.source));
    const asking = open.length > 0;
    const firing = st.hooks.some(
      (h) =>
        (h.event === "SessionStart" && !st.started) ||
        (h.event === "UserPromptSubmit" && turn.pending.length),
    );
    // Nothing to ask or fire: the turn starts at once (a resumed turn re-asks its questions now).
    if (!asking && !firing) {
      st.started = true;
      return undefined;
    }
    return this.beforeTurnAsync(thread, turn, st, loaded, open, key, runs);
  }

  private async beforeTurnAsync(
    thread: Thread,
    turn: ActiveTurn,
    st: ThreadHookState,
    loaded: LoadedHooks,
    open: HookSource[],
    key: (s: HookSource) => string,
    runs: (s: HookSource) => boolean,
  ): Promise<void> {
    if (open.length) {
      // A deferring run (`exec --questions defer`) stops at a question and cannot resume a trust
      // question that is not a tool call's: it is told to use `tandem hooks trust` instead.
      const live = thread.record.settings.headless_questions !== "defer";
      if (live && this.rt.responders.has(thread.id) && this.trustStore) {
        const yes = await this.askTrust(thread, turn, open, loaded.hooks);
        for (const s of open) this.decided.set(key(s), yes);
        if (yes) this.trustStore.trust(open);
      } else {
        this.warn(
          thread,
          thread.id,
          turn.id,
          `project hooks not trusted, skipped: ${open.map((s) => s.path).join(", ")} (nobody can answer the trust question here; run \`tandem hooks trust\` in the project to trust them)`,
        );
      }
    }
    st.hooks = loaded.hooks.filter((h) => runs(h.source));
    if (!st.hooks.length) return;
    if (!st.started) {
      st.started = true;
      const source = thread.items().some((i) => i.type === "message" && i.role === "assistant")
        ? "resume"
        : "startup";
      const d = await this.fireIn(
        thread.id,
        turn.id,
        "SessionStart",
        { source, model: thread.record.model },
        [source],
        undefined,
        turn.ctrl.signal,
      );
      this.addContext(thread, turn, d.context);
    }
    for (const p of [...turn.pending]) {
      const d = await this.fireIn(
        thread.id,
        turn.id,
        "UserPromptSubmit",
        { prompt: messageText(p.item) },
        [],
        undefined,
        turn.ctrl.signal,
      );
      if (d.block !== undefined || d.stop) {
        turn.pending.splice(turn.pending.indexOf(p), 1);
        this.warn(
          thread,
          thread.id,
          turn.id,
          `prompt blocked by a UserPromptSubmit hook: ${d.block ?? d.stop}`,
        );
      } else this.addContext(thread, turn, d.context);
    }
  }

  /** Stop / SubagentStop: the reason to go on when a hook refuses to let the turn end, else undefined. */
  async onStop(
    thread: Thread,
    turn: ActiveTurn,
    lastMessage: string | undefined,
    round: number,
  ): Promise<string | undefined> {
    const event: HookEvent = thread.record.parent_id ? "SubagentStop" : "Stop";
    const d = await this.fireIn(
      thread.id,
      turn.id,
      event,
      {
        stop_hook_active: round > 0,
        last_assistant_message: lastMessage ?? null,
      },
      [],
      undefined,
      turn.ctrl.signal,
    );
    if (d.stop || d.block === undefined) return undefined;
    if (round >= MAX_STOP_CONTINUATIONS) {
      this.warn(
        thread,
        thread.id,
        turn.id,
        `a ${event} hook kept the turn going ${round} times; it ends now`,
      );
      return undefined;
    }
    return d.block;
  }

  /** PermissionRequest, before an approval is shown: a hook's allow / deny, else undefined (ask). */
  async permission(
    thread: ApprovingThread,
    turnId: string,
    ask: ApprovalAsk,
    signal: AbortSignal,
  ): Promise<"accept" | "decline" | undefined> {
    const tool = ask.kind === "exec" ? "Bash" : "apply_patch";
    const input = ask.kind === "exec" ? { command: ask.command, cwd: ask.cwd } : { paths: ask.paths ?? [] };
    const d = await this.fireIn(
      thread.id,
      turnId,
      "PermissionRequest",
      { tool_name: tool, tool_input: input },
      ask.kind === "exec" ? ["Bash", "exec_command", "shell"] : ["apply_patch", "Edit", "Write", "MultiEdit"],
      undefined,
      signal,
    );
    if (d.interrupt) thread.interrupt("stopped by a PermissionRequest hook");
    if (d.block !== undefined || d.permission === "deny") return "decline";
    if (d.permission === "allow") return "accept";
    return undefined;
  }

  private addContext(thread: Thread, turn: ActiveTurn, context: string[]) {
    for (const text of context) {
      const item: MessageItem = {
        type: "message",
        role: "developer",
        content: [{ type: "input_text", text }],
      };
      thread.recordItem(item, turn.id);
    }
  }

  /** Fires `event` with the thread's trusted hooks; failures become `hook.warning` events. */
  private async fireIn(
    threadId: string,
    turnId: string | undefined,
    event: HookEvent,
    fields: Record<string, unknown>,
    names: readonly string[],
    ctx?: ToolContext,
    signal?: AbortSignal,
  ): Promise<HookDecision> {
    const st = this.state.get(threadId);
    const thread = this.rt.thread(threadId);
    const empty: HookDecision = { context: [], messages: [], warnings: [], ran: 0 };
    if (!st || !thread || !st.hooks.some((h) => h.event === event)) return empty;
    const common: CommonInput = {
      session_id: thread.record.session_id,
      thread_id: threadId,
      ...(turnId ? { turn_id: turnId } : {}),
      cwd: ctx?.cwd ?? st.cwd,
      hook_event_name: event,
    };
    const d = await fireHooks(st.hooks, event, { ...common, ...fields }, names, {
      cwd: ctx?.cwd ?? st.cwd,
      env: this.env(st.root),
      ...((ctx?.signal ?? signal) ? { signal: ctx?.signal ?? signal } : {}),
    });
    for (const w of d.warnings) this.warn(thread, threadId, turnId, w);
    for (const m of d.messages) this.warn(thread, threadId, turnId, m);
    return d;
  }

  private async askTrust(
    thread: Thread,
    turn: ActiveTurn,
    sources: HookSource[],
    hooks: HookDef[],
  ): Promise<boolean> {
    const paths = new Set(sources.map((s) => s.path));
    // Every command in full and quoted (a newline cannot fake a line of the question): trust
    // covers the whole file, so nothing of it may be left out of what the user sees.
    const lines = hooks
      .filter((h) => paths.has(h.source.path))
      .map(
        (h) =>
          `- ${h.event}${h.matcher ? ` (${JSON.stringify(h.matcher)})` : ""}: ${JSON.stringify(h.command)}`,
      );
    if (lines.join("\n").length > TRUST_SHOWN_CHARS) {
      this.warn(
        thread,
        thread.id,
        turn.id,
        `project hooks in ${[...paths].join(", ")} are too long to show in a question: skipped; review them with \`tandem hooks trust\``,
      );
      return false;
    }
    const digest = createHash("sha256")
      .update(sources.map((s) => `${s.path}\0${s.sha256}`).join("\n"))
      .digest("hex")
      .slice(0, 16);
    const callId = `hooks-trust-${digest}`;
    const request: QuestionRequest = {
      request_id: requestIdFor(thread.id, callId),
      thread_id: thread.id,
      turn_id: turn.id,
      call_id: callId,
      source: "internal",
      questions: [
        {
          id: "trust",
          header: "Trust hooks",
          prompt: `This project's hooks would run these commands on your machine, outside the sandbox:\n${lines.join("\n")}\nFiles: ${[...paths].join(", ")}\nTrust these files as they are now?`,
          kind: "single",
          options: [
            { label: TRUST_LABEL, description: "Remembered for this exact content; a change asks again" },
            { label: DISTRUST_LABEL, description: "Skip them in this session" },
          ],
          allow_other: false,
          secret: false,
        },
      ],
      // Trust is never granted by a timeout: the question waits.
      policy: { type: "wait" },
      deadline: null,
      created_at: Date.now(),
    };
    const outcome = await this.rt.ask(request, turn.ctrl.signal);
    if (outcome.status === "cancelled") throw new AbortError(outcome.reason);
    return outcome.status === "answered" && outcome.answers.trust?.selected[0] === TRUST_LABEL;
  }

  /** Resolves once the hooks and `notify` runs fired from events have ended (Runtime.shutdown). */
  async settled(): Promise<void> {
    while (this.background.size) await Promise.all([...this.background]);
  }

  private track(p: Promise<unknown>): void {
    const q = p.catch(() => {}).finally(() => this.background.delete(q));
    this.background.add(q);
  }

  private onEvent(event: Event): void {
    if (event.type === "context.compacting" || event.type === "context.compacted") {
      const name: HookEvent = event.type === "context.compacting" ? "PreCompact" : "PostCompact";
      const trigger = event.reason === "manual" ? "manual" : "auto";
      const extra =
        event.type === "context.compacted" ? { compact_summary: event.summary } : { custom_instructions: "" };
      this.track(this.fireIn(event.thread_id, event.turn_id, name, { trigger, ...extra }, [trigger]));
      return;
    }
    const n = notificationFor(event);
    if (!n) return;
    const thread = this.rt.thread(n.threadId);
    const cwd = this.state.get(n.threadId)?.cwd ?? thread?.record.cwd ?? process.cwd();
    const url = deepLink(this.serveUrl, n.threadId, n.questionId);
    const notify = this.rt.settings.notify;
    const chat = this.chatReply(
      event,
      !!notify || !!this.state.get(n.threadId)?.hooks.some((h) => h.event === "Notification"),
    );
    this.track(
      this.fireIn(
        n.threadId,
        n.turnId,
        "Notification",
        {
          message: n.message,
          notification_type: n.notificationType,
          title: "Tandem",
          ...(n.questionId ? { question_id: n.questionId } : {}),
          ...(url ? { url } : {}),
          ...(chat["question-text"] ? { question_text: chat["question-text"] } : {}),
          ...(chat["reply-url"] ? { reply_url: chat["reply-url"] } : {}),
        },
        [n.notificationType],
      ),
    );
    if (!notify) return;
    const items = thread?.items() ?? [];
    const msgs = (role: string) =>
      items.filter((i): i is MessageItem => i.type === "message" && i.role === role).map(messageText);
    const full = notifyPayload(n, {
      cwd,
      inputMessages: this.state.get(n.threadId)?.inputs ?? [],
      lastAssistantMessage: msgs("assistant").at(-1) ?? null,
      ...(url ? { url } : {}),
      ...chat,
    });
    const payload = JSON.stringify(full);
    // The reply link is a credential: a program's arguments are readable by every local user
    // (ps, /proc/PID/cmdline), its stdin and environment are not. So the argument is the payload
    // without `reply-url`; stdin has all of it, and $TANDEM_REPLY_URL the link.
    const { "reply-url": replyUrl, ...publicPayload } = full;
    const argument = JSON.stringify(publicPayload);
    const [name, ...args] = notify;
    const root = this.state.get(n.threadId)?.root ?? cwd;
    const env = this.env(root);
    if (typeof replyUrl === "string") env.TANDEM_REPLY_URL = replyUrl;
    // Never a program the model could have put on PATH (a workspace or temp directory).
    const program = hostProgram(name, env.PATH ?? "", [root, cwd]);
    if (!program) {
      this.warn(thread, n.threadId, n.turnId, `notify program ${name} not found (give an absolute path)`);
      return;
    }
    this.track(
      runHost(program, {
        args: [...args, argument],
        input: payload,
        cwd,
        env,
        timeoutMs: 30_000,
        maxOutputBytes: 64 * 1024,
      }).then((r) => {
        if (r.error || (r.code !== 0 && r.code !== null))
          this.warn(
            thread,
            n.threadId,
            n.turnId,
            `notify program ${program} failed: ${r.error?.message ?? `exit status ${r.code}`}`,
          );
      }),
    );
  }

  /**
   * What a chat needs to answer a waiting request (README "Answer from a chat"): its text, and
   * a reply link when this process serves HTTP and someone gets the notification. Neither for a
   * request with a secret question.
   */
  private chatReply(event: Event, delivered: boolean): { "question-text"?: string; "reply-url"?: string } {
    if (event.type !== "question.requested" || !delivered) return {};
    const request = event.request;
    if (request.questions.some((q) => q.secret)) return {};
    const token = this.serveUrl ? this.rt.replyLink(request) : undefined;
    return {
      "question-text": questionText(request),
      ...(token ? { "reply-url": `${this.serveUrl!.replace(/\/+$/, "")}/reply/${token}` } : {}),
    };
  }
}

/** The hooks that apply in `cwd`, with trust status (`tandem hooks list`, without a runtime). */
export function hooksIn(home: string, settings: Settings, cwd: string): LoadedHooks & { root: string } {
  const root = projectDirs(cwd)[0];
  return {
    ...loadHooks({ home, projectRoot: root, inline: settings.hooks, trust: createTrustStore(home) }),
    root,
  };
}

/** Trusts the project hooks files that apply in `cwd` as they are now (`tandem hooks trust`). */
export function trustHooksIn(
  home: string,
  settings: Settings,
  cwd: string,
  /** Only files whose content hashes to one of these (what the user reviewed). */
  hashes: readonly string[],
): HookSource[] {
  const project = hooksIn(home, settings, cwd).sources.filter(
    (s) => s.scope === "project" && hashes.includes(s.sha256),
  );
  createTrustStore(home).trust(project);
  return project;
}

/** `path` without relative entries and entries inside `root` (host/run.ts's rule for PATH). */
function trustedPath(path: string, root: string): string {
  const r = resolve(root);
  return path
    .split(delimiter)
    .filter((d) => d && isAbsolute(d) && resolve(d) !== r && !resolve(d).startsWith(r + sep))
    .join(delimiter);
}
