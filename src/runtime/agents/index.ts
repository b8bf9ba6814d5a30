/**
 * Sub-agents (README "Sub-agents"): spawning, the registry of children, limits, roles, attribution and
 * the cascades. A child is a real thread in the store (`parent_id`, and `settings.agent`:
 * nickname, role, depth, task, root) with its own history; it runs its turns like any thread,
 * concurrently with its parent.
 *
 * Contract:
 * - `spawn` refuses, with a message the model can act on, a depth over `agents.max_depth`, more
 *   than `agents.max_threads` open sub-agents under one root, and an unknown role. A child gets
 *   the parent's sandbox (never looser), approval policy, question policy, mode and cwd; a role
 *   may narrow its tools and pick its model, effort and instructions.
 * - `lineage(id)` is the thread and its ancestors, itself first; the broker, the responders and
 *   the bus use it so a child's questions and approvals are asked on the root's surfaces (Q14),
 *   stamped with `info(id)` (who asks). Parent links never change, so lineages are cached.
 * - A parent's turn ending `interrupted` interrupts its children's turns; a parent closing closes
 *   them (each cascades further down the same way).
 * - `reopen(parentId)` (resume) opens the stored children that were running or waiting on the
 *   user, so their pending questions are asked again; `rerunsOnResume(call)` names the calls a
 *   resumed parent runs again instead of marking them aborted (`wait_agent`).
 */
import type { AgentsConfig } from "../../config/agents.js";
import type { CollaborationMode, Event } from "../../protocol/events.js";
import { type MessageItem, messageText, type ResponseItem, type ToolCallItem } from "../../protocol/items.js";
import type { AgentInfo } from "../../protocol/questions.js";
import type { AgentSettings } from "../../protocol/threads.js";
import type { ThreadRecord } from "../../store/types.js";
import {
  type AgentOps,
  type CloseAgentArgs,
  createAgentTools,
  type SendInputArgs,
  type SpawnAgentArgs,
  type WaitAgentArgs,
} from "../../tools/agents.js";
import type { FunctionTool, ToolContext } from "../../tools/types.js";
import { AbortError } from "../../util/abort.js";
import type { Bus } from "../../util/bus.js";
import type { Thread } from "../thread.js";
import type { StartThreadOptions } from "../types.js";
import { DEFAULT_ROLE, describeRoles, loadRoles } from "./roles.js";

/** What the registry needs from the runtime. */
export interface AgentHost {
  readonly settings: { agents: AgentsConfig };
  /** Tandem's own state (home, store): a role file linked there is never read. */
  readonly hiddenPaths?: readonly string[];
  readonly store: {
    getThread(id: string): ThreadRecord | undefined;
    listThreads(opts?: { limit?: number }): ThreadRecord[];
  };
  readonly bus: Bus;
  readonly broker: { pendingCount(threadId?: string): number };
  thread(id: string): Thread | undefined;
  startThread(opts: StartThreadOptions): Thread;
  openThread(id: string): Thread;
}

export type { AgentSettings } from "../../protocol/threads.js";

export type AgentStatus =
  | "running"
  | "waiting_on_user"
  | "completed"
  | "failed"
  | "interrupted"
  | "idle"
  | "closed"
  | "not_found";

export class AgentError extends Error {
  override name = "AgentError";
}

const NICKNAMES = [
  "Ada", "Babbage", "Curie", "Darwin", "Euler", "Faraday", "Gauss", "Hopper", "Noether", "Kepler",
  "Lovelace", "Maxwell", "Newton", "Ohm", "Pascal", "Riemann", "Shannon", "Turing", "Volta", "Wiles",
]; // biome-ignore format: one line of names reads better

const DEFAULT_WAIT_MS = 300_000;
const SUBAGENT_TAG = "subagent_context";

export class Agents {
  private readonly parents = new Map<string, string | null>();
  private readonly kids = new Map<string, Set<string>>();

  /** Listens for the cascades once there is a child (a runtime without sub-agents adds no listener). */
  private listening = false;

  constructor(private readonly host: AgentHost) {}

  /** The thread and its ancestors, itself first. */
  lineage(threadId: string): string[] {
    const out = [threadId];
    let id: string | null | undefined = threadId;
    while (out.length < 64) {
      id = this.parentOf(id);
      if (!id || out.includes(id)) break;
      out.push(id);
    }
    return out;
  }

  private parentOf(id: string): string | null {
    const cached = this.parents.get(id);
    if (cached !== undefined) return cached;
    const record = this.record(id);
    if (!record) return null; // not known yet: not cached
    this.parents.set(id, record.parent_id);
    return record.parent_id;
  }

  private record(id: string): ThreadRecord | undefined {
    return this.host.thread(id)?.record ?? this.host.store.getThread(id);
  }

  /** Attribution of a sub-agent thread (undefined for a root thread or an unknown one). */
  info(threadId: string): AgentInfo | undefined {
    const record = this.record(threadId);
    const a = record?.settings.agent;
    if (!record?.parent_id || !a) return undefined;
    return {
      thread_id: threadId,
      parent_thread_id: record.parent_id,
      root_thread_id: a.root_id,
      nickname: a.nickname,
      role: a.role,
      depth: a.depth,
      task: a.task,
    };
  }

  /** The agent tools for a thread in `cwd` (roles from config and the project). */
  tools(cwd: string): FunctionTool[] {
    const { roles } = loadRoles(this.host.settings.agents, cwd, this.host.hiddenPaths);
    return createAgentTools(this.ops(), {
      roles: describeRoles(roles),
      maxDepth: this.host.settings.agents.max_depth,
    });
  }

  /** Calls a resumed parent runs again after a restart instead of recording them aborted. */
  rerunsOnResume(call: ToolCallItem): boolean {
    return call.type === "function_call" && call.name === "wait_agent";
  }

  /** Opens the stored children of `parentId` that were running or waiting on the user (resume). */
  reopen(parentId: string): Thread[] {
    const opened: Thread[] = [];
    for (const r of this.host.store.listThreads()) {
      if (r.parent_id !== parentId) continue;
      this.adopt(parentId, r.id);
      if (this.host.thread(r.id) || (r.status !== "running" && r.status !== "waiting_on_user")) continue;
      try {
        opened.push(this.host.openThread(r.id));
      } catch (err) {
        process.emitWarning(`could not reopen sub-agent ${r.id}: ${(err as Error).message}`);
      }
    }
    return opened;
  }

  /**
   * The topmost ancestor of a sub-agent that is not open here but was working when its process
   * stopped: opening a child opens it first, so the parent waiting on the child resumes too.
   */
  workingAncestor(threadId: string): string | undefined {
    const up = this.lineage(threadId).slice(1).reverse();
    return up.find((id) => {
      if (this.host.thread(id)) return false;
      const status = this.host.store.getThread(id)?.status;
      return status === "running" || status === "waiting_on_user";
    });
  }

  private adopt(parentId: string, childId: string): void {
    if (!this.listening) {
      this.listening = true;
      this.host.bus.subscribe((s) => this.cascade(s.event));
    }
    const set = this.kids.get(parentId) ?? new Set<string>();
    this.kids.set(parentId, set);
    set.add(childId);
    this.parents.set(childId, parentId);
  }

  private ops(): AgentOps {
    return {
      spawn: (args, ctx) => this.spawn(this.caller(ctx), args),
      send: (args, ctx) => this.send(this.caller(ctx), args),
      wait: (args, ctx) => this.wait(this.caller(ctx), args, ctx.signal),
      close: (args, ctx) => this.close(this.caller(ctx), args),
      list: (ctx) => this.list(this.caller(ctx)),
    };
  }

  private caller(ctx: ToolContext): Thread {
    const t = this.host.thread(ctx.threadId);
    if (!t) throw new AgentError(`thread ${ctx.threadId} is not open`);
    return t;
  }

  spawn(parent: Thread, args: SpawnAgentArgs): { agent_id: string; nickname: string } {
    const limits = this.host.settings.agents;
    const parentAgent = parent.record.settings.agent;
    const depth = (parentAgent?.depth ?? 0) + 1;
    if (depth > limits.max_depth)
      throw new AgentError(
        `cannot spawn a sub-agent: it would be at depth ${depth}, over agents.max_depth = ${limits.max_depth}. ` +
          "Do this part of the work yourself.",
      );
    const rootId = parentAgent?.root_id ?? parent.id;
    const open = this.tree(rootId).filter((t) => t.status !== "closed");
    if (open.length >= limits.max_threads)
      throw new AgentError(
        `cannot spawn a sub-agent: ${open.length} are already open under this conversation ` +
          `(agents.max_threads = ${limits.max_threads}). Wait for one and close it with close_agent, or do the work yourself.`,
      );
    const turn = parent.active;
    const cwd = turn?.options.cwd ?? parent.record.cwd;
    const { roles } = loadRoles(limits, cwd, this.host.hiddenPaths);
    const roleName = args.agent_type ?? DEFAULT_ROLE;
    const role = roles.get(roleName);
    if (!role)
      throw new AgentError(`unknown agent_type "${roleName}"; known roles: ${[...roles.keys()].join(", ")}`);
    const nickname = this.nickname(rootId);
    const sandbox = parent.sandbox(turn);
    const st = parent.record.settings;
    const agent: AgentSettings = { nickname, role: role.name, depth, task: args.message, root_id: rootId };
    const child = this.host.startThread({
      cwd,
      parentId: parent.id,
      sessionId: parent.record.session_id,
      model: args.model ?? role.model ?? turn?.options.model ?? parent.record.model,
      effort: args.reasoning_effort ?? role.effort ?? turn?.options.effort ?? st.effort,
      mode: (turn?.mode ?? parent.record.mode) as CollaborationMode,
      questionPolicy: parent.questionPolicy(turn),
      offerQuestions: st.offer_questions !== false,
      headlessQuestions: st.headless_questions,
      disabledTools: st.disabled_tools,
      extraSettings: {
        agent,
        // Never looser than the parent: its sandbox in force, its approval policy.
        sandbox_mode: sandbox.mode,
        writable_roots: st.writable_roots ?? [],
        network_access: sandbox.network,
        approval_policy: turn?.options.approval_policy ?? parent.approvalPolicy(),
        ...(role.tools ? { allowed_tools: role.tools } : {}),
      },
    });
    this.adopt(parent.id, child.id);
    child.recordItem(contextItem(agent, parent.id, role.instructions), null);
    child.startTurn(args.message, { mentions: false });
    return { agent_id: child.id, nickname };
  }

  /** Every sub-agent thread loaded under `rootId`. */
  private tree(rootId: string): Thread[] {
    const out: Thread[] = [];
    const walk = (id: string) => {
      for (const k of this.kids.get(id) ?? []) {
        const t = this.host.thread(k);
        if (t) out.push(t);
        walk(k);
      }
    };
    walk(rootId);
    return out;
  }

  private nickname(rootId: string): string {
    const used = new Set<string>();
    for (const r of this.host.store.listThreads())
      if (r.settings.agent?.root_id === rootId) used.add(r.settings.agent.nickname);
    for (const t of this.tree(rootId)) {
      const a = t.record.settings.agent;
      if (a) used.add(a.nickname);
    }
    const free = NICKNAMES.find((n) => !used.has(n));
    if (free) return free;
    let i = NICKNAMES.length + 1;
    while (used.has(`Agent-${i}`)) i++;
    return `Agent-${i}`;
  }

  /** A child of `parent` by agent id, unique id prefix or nickname. */
  private child(parent: Thread, ref: string): Thread {
    const ids = [...(this.kids.get(parent.id) ?? [])];
    const hit =
      ids.find((id) => id === ref) ??
      ids.find((id) => this.record(id)?.settings.agent?.nickname === ref) ??
      (ids.filter((id) => id.startsWith(ref)).length === 1
        ? ids.find((id) => id.startsWith(ref))
        : undefined);
    if (!hit) {
      const known = ids.map((id) => `${id} (${this.nicknameOf(id)})`).join(", ") || "none";
      throw new AgentError(`no sub-agent "${ref}" of yours; your sub-agents: ${known}`);
    }
    return this.host.thread(hit) ?? this.host.openThread(hit);
  }

  private nicknameOf(id: string): string {
    return this.record(id)?.settings.agent?.nickname ?? "?";
  }

  status(t: Thread): AgentStatus {
    if (t.status === "closed") return "closed";
    if (t.active) return this.host.broker.pendingCount(t.id) > 0 ? "waiting_on_user" : "running";
    return t.lastOutcome?.status ?? (t.status === "failed" ? "failed" : "idle");
  }

  private summary(t: Thread) {
    const a = t.record.settings.agent;
    const status = this.status(t);
    const final = finalMessage(t);
    return {
      agent_id: t.id,
      nickname: a?.nickname,
      role: a?.role,
      status,
      ...(final !== undefined && status !== "running" ? { final_message: final } : {}),
      ...(t.lastOutcome?.error && status === "failed" ? { error: t.lastOutcome.error.message } : {}),
    };
  }

  async wait(parent: Thread, args: WaitAgentArgs, signal: AbortSignal) {
    const children = args.ids.map((ref) => this.child(parent, ref));
    const ms = args.timeout_ms ?? DEFAULT_WAIT_MS;
    let timer: NodeJS.Timeout | undefined;
    let onAbort = () => {};
    const finished = Promise.all(children.map(settled)).then(() => false);
    const timedOut = new Promise<boolean>((r) => {
      timer = setTimeout(() => r(true), ms);
    });
    const aborted = new Promise<never>((_, reject) => {
      onAbort = () => reject(new AbortError("wait_agent was interrupted"));
      if (signal.aborted) onAbort();
      else signal.addEventListener("abort", onAbort, { once: true });
    });
    try {
      const timed_out = await Promise.race([finished, timedOut, aborted]);
      return { status: Object.fromEntries(children.map((c) => [c.id, this.summary(c)])), timed_out };
    } finally {
      clearTimeout(timer);
      signal.removeEventListener("abort", onAbort);
    }
  }

  async send(parent: Thread, args: SendInputArgs) {
    const child = this.child(parent, args.id);
    if (child.status === "closed") throw new AgentError(`sub-agent ${args.id} is closed`);
    if (child.active && args.interrupt) {
      child.interrupt("interrupted by its parent");
      await child.active?.done.catch(() => {});
    }
    if (child.active) {
      child.steer(args.message);
      return { agent_id: child.id, delivered: "queued" };
    }
    child.startTurn(args.message, { mentions: false });
    return { agent_id: child.id, delivered: "started" };
  }

  async close(parent: Thread, args: CloseAgentArgs) {
    const child = this.child(parent, args.id);
    const before = this.summary(child);
    await child.close();
    return { ...before, status_before: before.status, status: "closed" };
  }

  list(parent: Thread) {
    return {
      agents: [...(this.kids.get(parent.id) ?? [])].map((id) => {
        const t = this.host.thread(id);
        if (t) return { ...this.summary(t), task: t.record.settings.agent?.task };
        const r = this.record(id);
        const a = r?.settings.agent;
        return {
          agent_id: id,
          nickname: a?.nickname,
          role: a?.role,
          status: r?.status ?? "not_found",
          task: a?.task,
        };
      }),
    };
  }

  /** Parent interrupted → children interrupted; parent closed → children closed. */
  private cascade(e: Event): void {
    if (e.type === "turn.completed" && e.status === "interrupted") {
      for (const id of this.kids.get(e.thread_id) ?? [])
        this.host.thread(id)?.interrupt("parent interrupted");
    } else if (e.type === "thread.status_changed" && e.status === "closed") {
      for (const id of this.kids.get(e.thread_id) ?? [])
        void this.host
          .thread(id)
          ?.close()
          .catch(() => {});
    }
  }
}

/** Resolves when the thread has no running turn (one started meanwhile is waited for too). */
async function settled(t: Thread): Promise<void> {
  while (t.active) await t.active.done.catch(() => {});
}

/** The last assistant message of the thread's history. */
function finalMessage(t: Thread): string | undefined {
  if (t.lastOutcome?.lastMessage) return t.lastOutcome.lastMessage;
  const items: ResponseItem[] = t.items();
  for (let i = items.length - 1; i >= 0; i--) {
    const it = items[i];
    if (it.type === "message" && it.role === "assistant") return messageText(it);
  }
  return undefined;
}

/** What a child is told about itself before its task (the model sees it as context). */
function contextItem(a: AgentSettings, parentId: string, instructions?: string): MessageItem {
  const text = [
    `<${SUBAGENT_TAG}>`,
    `You are a sub-agent named ${a.nickname} (role ${a.role}, depth ${a.depth}), started by thread ${parentId}.`,
    "Do the task in the next message and end with a short final message: it is what your parent reads.",
    "Your questions and approval requests reach the user, who sees your name and task.",
    ...(instructions ? ["", instructions] : []),
    `</${SUBAGENT_TAG}>`,
  ].join("\n");
  return { type: "message", role: "user", content: [{ type: "input_text", text }] };
}
