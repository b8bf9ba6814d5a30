/**
 * The TUI's link to the runtime (no React here). It owns which thread the UI shows, attaches
 * the TUI as that thread's responder (Q3), feeds the bus into the view store, and turns user
 * intents into runtime calls: start a turn or steer, interrupt, reply/decline/touch a question,
 * switch mode, new/resume thread, and the settings and information commands (session.ts):
 * /model and /approvals change the thread's settings for later turns (kept for /new and /resume
 * in this UI too; chosen while a turn runs, they are stored before the next turn starts).
 * Pickers (/resume, /model, /approvals without arguments) open on `menus` (picker.ts).
 * `/agents` lists the sub-agents and switches the transcript to one (`agentView`, agent-view.ts).
 *
 * Contract: every method reports failures as notices in the transcript or as a returned
 * `{ok:false, message}`; none throws into the UI. `touch` is throttled per request (one broker
 * call per `touchEveryMs`). `dispose()` detaches the responder and unsubscribes; it does not shut
 * the runtime down (the caller owns it).
 */

import { imageDataUrl } from "../../host/image-file.js";
import { listProviderModels } from "../../model/list-models.js";
import type { CollaborationMode, Usage } from "../../protocol/events.js";
import type { QuestionReply, QuestionRequest, Responder } from "../../protocol/questions.js";
import {
  parseReviewArgs,
  REVIEW_TURN,
  reviewLabel,
  reviewPrompt,
  reviewRequestLine,
  targetProblem,
} from "../../protocol/review.js";
import type { Runtime } from "../../runtime/core.js";
import type { ThreadHandle as Thread } from "../../runtime/types.js";
import { AgentView } from "./agent-view.js";
import { type BranchDeps, runBranchCommand } from "./branch-commands.js";
import { cellsFromHistory, patchDiffsOf } from "./cells.js";
import { type CommandName, helpText, parseCommand } from "./commands.js";
import { ComposerHistory } from "./history.js";
import type { Keymap } from "./keymap.js";
import type { ActionResult } from "./overlay.js";
import { MenuHost } from "./picker.js";
import {
  applyPatch,
  approvalChoices,
  describePatch,
  diffText,
  effortChoices,
  effortOf,
  headerLines,
  initAgentsMd,
  modelChoices,
  PRESETS,
  parseApprovalArgs,
  parseModelArgs,
  resumeChoices,
  type SettingsPatch,
  statusLines,
  threadListLines,
} from "./session.js";
import { TuiSkills } from "./skills.js";
import { ViewStore } from "./view-store.js";

export interface ControllerOptions {
  cwd: string;
  model?: string;
  mode: CollaborationMode;
  keymap: Keymap;
  demo?: boolean;
  responder?: Responder;
  touchEveryMs?: number;
  frameMs?: number;
  /** The composer's ↑/↓ history (default: in memory only). */
  history?: ComposerHistory;
  /** `/clear`: clears the terminal (index.tsx wires it to Ink; default: nothing to clear). */
  clearScreen?: () => void;
}

export type SubmitResult = "sent" | "steered" | "command" | "quit" | "ignored";

export class TuiController {
  readonly store: ViewStore;
  readonly history: ComposerHistory;
  mode: CollaborationMode;
  private thread: Thread | undefined;
  private detach: () => void = () => {};
  private readonly unsubscribe: () => void;
  private readonly responder: Responder;
  private lastTouch = new Map<string, number>();
  readonly menus = new MenuHost();
  /** Custom commands and skills for the composer, and /skills (skills.ts). */
  readonly skills: TuiSkills;
  /** The sub-agent whose transcript is shown instead of the thread's (README "Sub-agents"). */
  readonly agentView: AgentView;
  /** The provider's model list (GET /models), fetched on the first /model. */
  private providerModels: Promise<string[] | undefined> | undefined;
  /** Settings chosen with /model and /approvals in this UI (applied to threads it opens). */
  private chosen: SettingsPatch = {};
  /** Chosen while a turn ran: stored before the next turn starts. */
  private pendingPatch: SettingsPatch | null = null;
  /** The last response's usage per thread (what fills the context window). */
  private lastUsage = new Map<string, Usage>();

  constructor(
    readonly runtime: Runtime,
    private readonly opts: ControllerOptions,
  ) {
    this.mode = opts.mode;
    this.history = opts.history ?? new ComposerHistory(undefined);
    this.responder = opts.responder ?? { kind: "tui" };
    this.store = new ViewStore(
      { id: "", model: opts.model ?? runtime.settings.model, mode: opts.mode, cwd: opts.cwd },
      { demo: opts.demo, frameMs: opts.frameMs },
    );
    this.agentView = new AgentView(runtime, this.store, this.menus, { frameMs: opts.frameMs });
    this.skills = new TuiSkills(runtime);
    const sub = runtime.subscribe((s) => {
      if (s.event.type === "token.usage") this.lastUsage.set(s.event.thread_id, s.event.last);
      this.store.handle(s.event);
      this.agentView.handle(s.event);
    });
    this.unsubscribe = () => sub.unsubscribe();
  }

  get threadId(): string {
    return this.store.threadId;
  }

  /** The directory the UI was opened on. */
  get cwd(): string {
    return this.opts.cwd;
  }

  get running(): boolean {
    return !!this.thread?.active;
  }

  /** Starts a fresh thread and shows it. */
  startNew(): Thread {
    const thread = this.runtime.threads.start({
      cwd: this.opts.cwd,
      model: this.chosen.model ?? this.opts.model,
      effort: this.chosen.effort,
      mode: this.mode,
    });
    this.applySafety(thread);
    this.show(thread);
    return thread;
  }

  /**
   * Opens a stored thread: its history becomes cells; questions pending in the store are re-asked.
   * `header`: draw the startup header before the history (`tandem --resume`).
   */
  resume(idOrPrefix: string, opts: { header?: boolean } = {}): Thread {
    // An exact id, a unique prefix, or the web page's short id (a suffix).
    const hit = this.runtime.threads.resolve(idOrPrefix);
    if (!hit.ok) throw new Error(`${hit.message}; /resume lists them`);
    const id = hit.id;
    if (this.thread?.id === id) throw new Error(`thread ${id} is the one shown`);
    const record = this.runtime.threads.stored(id);
    if (!record) throw new Error(`no thread with id ${id}; /threads lists them`);
    const previous = this.thread;
    // The store must follow the new id before openThread re-asks pending questions (it publishes them).
    this.store.setThread({ id, model: record.model, mode: record.mode, cwd: record.cwd });
    let thread: Thread;
    try {
      thread = this.runtime.threads.open(id, {
        model: this.chosen.model ?? this.opts.model,
        effort: this.chosen.effort,
      });
    } catch (err) {
      if (previous) this.show(previous);
      throw err;
    }
    this.mode = thread.record.mode;
    if (!thread.active) this.applySafety(thread);
    const cells = cellsFromHistory(
      thread.items(),
      (callId) => this.runtime.questions.ofCall(id, callId),
      patchDiffsOf(this.runtime.threads.history(id), this.runtime.threads.turns(id)),
      record.cwd,
    );
    // At startup the header comes first, then the history it introduces (as in a live session).
    if (opts.header)
      this.store.add({ kind: "banner", title: "Tandem", lines: headerLines(this.runtime, thread) });
    this.store.notice(`Resumed thread ${id} (${cells.length} entries)`, "dim");
    this.store.addCells(cells);
    this.history.addThread(cells.flatMap((c) => (c.kind === "user" ? [c.text] : [])));
    this.show(thread);
    return thread;
  }

  /** /review [base BRANCH | commit SHA | TEXT]: a read-only review turn on the shown thread. */
  private review(arg: string): void {
    const thread = this.thread;
    if (!thread) return;
    if (thread.active) {
      this.store.notice("a turn is running: /review when it ends", "warn");
      return;
    }
    const target = parseReviewArgs(arg);
    const problem = targetProblem(target);
    if (problem) {
      this.store.notice(`/review: ${problem}`, "error");
      return;
    }
    this.store.setThread(this.info(thread), thread.status);
    const turn = thread.startTurn(reviewPrompt(target), {
      options: REVIEW_TURN,
      mentions: false,
      display: reviewRequestLine(reviewLabel(target)),
    });
    this.store.reviewTurn(turn.id, thread.record.cwd);
  }

  /** A message with images: a new turn (steering input is text only), images read now. */
  private submitImages(text: string, paths: string[]): SubmitResult {
    const thread = this.thread;
    if (!thread) return "ignored";
    if (thread.active) {
      this.store.notice("Images go with a new message: wait for the turn to end (nothing was sent).", "warn");
      return "ignored";
    }
    const urls: string[] = [];
    for (const p of paths) {
      const r = imageDataUrl(p, thread.record.cwd);
      if ("error" in r) {
        this.store.notice(`${r.error}; nothing was sent`, "error");
        return "ignored";
      }
      urls.push(r.url);
    }
    if (this.pendingPatch) applyPatch(this.runtime, thread, this.pendingPatch);
    this.pendingPatch = null;
    this.store.setThread(this.info(thread), thread.status);
    thread.startTurn(text, { images: urls, options: { mode: this.mode } });
    return "sent";
  }

  private applySafety(thread: Thread): void {
    const { sandbox_mode, approval_policy } = this.chosen;
    if (sandbox_mode || approval_policy) applyPatch(this.runtime, thread, { sandbox_mode, approval_policy });
  }

  private info(thread: Thread) {
    const r = thread.record;
    return { id: thread.id, model: r.model, mode: this.mode, cwd: r.cwd };
  }

  /** The startup header: model, directory, sandbox and approval policy of the shown thread. */
  header(): void {
    if (this.thread)
      this.store.add({ kind: "banner", title: "Tandem", lines: headerLines(this.runtime, this.thread) });
  }

  private show(thread: Thread): void {
    this.agentView.back();
    this.detach();
    this.thread = thread;
    const { sandbox_mode, approval_policy } = this.chosen;
    this.pendingPatch =
      thread.active && (sandbox_mode || approval_policy) ? { sandbox_mode, approval_policy } : null;
    this.detach = this.runtime.questions.attach({ threadId: thread.id }, this.responder);
    this.skills.refresh(thread.record.cwd);
    this.store.setThread(this.info(thread), thread.status);
    for (const request of this.runtime.questions.list({ threadId: thread.id }))
      this.store.addPending(request);
  }

  /** Enter in the composer: a slash command, a new turn, or a steer for the running one. */
  /** A notice under the transcript (the composer's: an image that could not be pasted). */
  notice(text: string, tone: "dim" | "warn" | "error" = "dim"): void {
    this.store.notice(text, tone);
  }

  /** `images`: image file paths (the composer's chips), read and sent with a new turn. */
  submit(text: string, images: string[] = []): SubmitResult {
    if (images.length) return this.submitImages(text, images);
    const cmd = parseCommand(text, this.skills.commandNames());
    if (cmd) {
      if (!cmd.ok) {
        this.store.notice(cmd.error, "error");
        return "command";
      }
      return this.command(cmd.name, cmd.arg);
    }
    const body = text.startsWith("//") ? text.slice(1) : text;
    const thread = this.thread;
    if (!thread) return "ignored";
    // `!cmd` runs the user's own command (README "Your own commands: `!`").
    const own = text.startsWith("!") ? text.slice(1).trim() : "";
    try {
      if (own) {
        this.store.setThread(this.info(thread), thread.status);
        thread.shell(own);
        return "sent";
      }
      if (thread.active) {
        thread.steer(body);
        return "steered";
      }
      if (this.pendingPatch) applyPatch(this.runtime, thread, this.pendingPatch);
      this.pendingPatch = null;
      this.store.setThread(this.info(thread), thread.status);
      thread.startTurn(body, { options: { mode: this.mode } });
      this.skills.refresh(thread.record.cwd);
      return "sent";
    } catch (err) {
      this.store.notice(`could not send: ${(err as Error).message}`, "error");
      return "ignored";
    }
  }

  interrupt(): boolean {
    return this.thread?.interrupt() ?? false;
  }

  reply(request: QuestionRequest, reply: QuestionReply): ActionResult {
    this.store.markOwn(request.request_id);
    const r = this.runtime.questions.reply(request.thread_id, request.request_id, reply, this.responder);
    return r.ok ? { ok: true } : { ok: false, message: r.message };
  }

  decline(request: QuestionRequest): ActionResult {
    this.store.markOwn(request.request_id);
    const r = this.runtime.questions.decline(
      request.thread_id,
      request.request_id,
      this.responder,
      "declined in the terminal UI",
    );
    return r.ok ? { ok: true } : { ok: false, message: r.message };
  }

  /** Any key on the overlay: snoozes a timeout policy's deadline (throttled). */
  touch(request: QuestionRequest): void {
    if (request.policy.type !== "timeout") return;
    const now = Date.now();
    const last = this.lastTouch.get(request.request_id) ?? 0;
    if (now - last < (this.opts.touchEveryMs ?? 1000)) return;
    this.lastTouch.set(request.request_id, now);
    this.runtime.questions.touch(request.request_id, this.responder);
  }

  setMode(mode: CollaborationMode): void {
    this.mode = mode;
    this.store.setMode(mode);
    const when = this.running ? " from the next turn" : "";
    this.store.notice(
      mode === "plan"
        ? `Plan mode${when}: the model plans and may ask you questions before acting.`
        : `Default mode${when}.`,
      "dim",
    );
  }

  command(name: CommandName, arg: string): SubmitResult {
    switch (name) {
      case "plan":
      case "default":
        this.setMode(name);
        return "command";
      case "help":
        this.store.notice(helpText(this.opts.keymap).join("\n"), "dim");
        return "command";
      case "quit":
        return "quit";
      case "threads":
        this.listThreads();
        return "command";
      case "agents":
        this.agentView.openPicker();
        return "command";
      case "skills":
        this.skills.openPicker(this.menus, (text) => this.store.notice(text, "dim"));
        return "command";
      case "model":
      case "approvals":
        this.settingsCommand(name, arg);
        return "command";
      case "status":
        if (this.thread)
          this.store.notice(
            statusLines(this.runtime, this.thread, this.lastUsage.get(this.thread.id)).join("\n"),
            "info",
          );
        return "command";
      case "review": {
        this.review(arg);
        return "command";
      }
      case "diff": {
        if (!this.thread) return "command";
        const d = diffText(this.thread);
        this.store.notice(
          d.empty ? d.text : `Diff of the ${this.running ? "current" : "last"} turn:\n${d.text}`,
          d.empty ? "dim" : "info",
        );
        return "command";
      }
      case "compact": {
        const thread = this.thread;
        if (!thread) return "command";
        if (!thread.items().some((it) => it.type !== "message" || it.role !== "user")) {
          this.store.notice("nothing to compact yet", "dim");
          return "command";
        }
        const wasRunning = this.running;
        thread.compact();
        if (wasRunning) this.store.notice("context will be compacted before the next request", "dim");
        return "command";
      }
      case "undo":
      case "redo":
      case "fork":
      case "rewind":
        runBranchCommand(this.branchDeps(), name, arg);
        return "command";
      case "init": {
        const r = initAgentsMd(this.thread?.record.cwd ?? this.opts.cwd);
        this.store.notice(r.message, r.ok ? "ok" : "warn");
        return "command";
      }
      case "new":
      case "clear":
      case "resume": {
        if (this.running) {
          this.store.notice(
            `a turn is running; interrupt it (${this.opts.keymap.label("turn.interrupt")}) first`,
            "warn",
          );
          return "command";
        }
        if (name === "resume" && !arg) {
          this.openResumePicker();
          return "command";
        }
        try {
          if (name === "resume") this.resume(arg);
          else {
            if (name === "clear") this.opts.clearScreen?.();
            const t = this.startNew();
            if (name === "clear") this.header();
            this.store.notice(`New thread ${t.id}`, "dim");
          }
        } catch (err) {
          this.store.notice((err as Error).message, "error");
        }
        return "command";
      }
    }
  }

  private branchDeps(): BranchDeps {
    return {
      runtime: this.runtime,
      thread: () => this.thread,
      notice: (text, tone) => this.store.notice(text, tone),
      menus: this.menus,
      open: (id) => {
        try {
          this.resume(id);
        } catch (err) {
          this.store.notice((err as Error).message, "error");
        }
      },
      replay: () => this.replay(),
      interruptKey: this.opts.keymap.label("turn.interrupt"),
    };
  }

  /** After a rewind: the screen is cleared and the shown thread's (shorter) history drawn again. */
  private replay(): void {
    const thread = this.thread;
    if (!thread) return;
    this.opts.clearScreen?.();
    this.header();
    this.store.addCells(
      cellsFromHistory(
        thread.items(),
        (callId) => this.runtime.questions.ofCall(thread.id, callId),
        patchDiffsOf(this.runtime.threads.history(thread.id), this.runtime.threads.turns(thread.id)),
        thread.record.cwd,
      ),
    );
  }

  /** /model and /approvals: with arguments they apply at once; without, a picker asks. */
  private settingsCommand(name: "model" | "approvals", arg: string): void {
    const thread = this.thread;
    if (!thread) return;
    if (arg.trim()) {
      const parsed = name === "model" ? parseModelArgs(arg) : parseApprovalArgs(arg);
      if (parsed.ok) this.choose(parsed.patch);
      else this.store.notice(parsed.error, "error");
      return;
    }
    if (name === "approvals") {
      this.menus.open({
        title: "Approvals and sandbox for the next turns",
        items: approvalChoices(thread),
        onPick: (v) => this.choose(PRESETS[v].patch),
      });
      return;
    }
    // The provider's own list (GET /models), asked once per UI; the picker opens either way.
    this.providerModels ??= listProviderModels(this.runtime.provider);
    void this.providerModels.then((listed) => {
      if (this.thread !== thread) return;
      this.openModelPicker(thread, listed ?? []);
    });
  }

  private openModelPicker(thread: Thread, listed: string[]): void {
    this.menus.open({
      title: "Model for the next turns",
      items: modelChoices(this.runtime, thread, listed),
      onPick: (model) =>
        this.menus.open({
          title: `Reasoning effort for ${model}`,
          items: effortChoices(effortOf(this.runtime, thread)),
          onPick: (effort) => this.choose({ model, effort: effort as SettingsPatch["effort"] }),
        }),
    });
  }

  /** Makes a settings change: stored with the shown thread now, or before its next turn. */
  private choose(patch: SettingsPatch): void {
    const thread = this.thread;
    if (!thread || Object.keys(patch).length === 0) return;
    this.chosen = { ...this.chosen, ...patch };
    if (thread.active) this.pendingPatch = { ...this.pendingPatch, ...patch };
    else {
      applyPatch(this.runtime, thread, patch);
      this.store.setThread(this.info(thread), thread.status);
    }
    this.store.notice(
      `${describePatch(patch)} — ${thread.active ? "from the next turn" : "for the next turns"}.`,
      "ok",
    );
  }

  /** /resume without an id: recent threads, newest first, with their titles and ages. */
  private openResumePicker(): void {
    const items = resumeChoices(this.runtime, this.threadId);
    if (!items.length) {
      this.store.notice("no other threads to resume", "dim");
      return;
    }
    this.menus.open({
      title: "Resume a thread",
      items,
      onPick: (id) => {
        try {
          this.resume(id);
        } catch (err) {
          this.store.notice((err as Error).message, "error");
        }
      },
    });
  }

  private listThreads(): void {
    const lines = threadListLines(this.runtime, this.threadId);
    this.store.notice(lines ? lines.join("\n") : "no threads yet", "dim");
  }

  dispose(): void {
    this.agentView.dispose();
    this.detach();
    this.unsubscribe();
    this.store.flushNow();
    this.store.dispose();
  }
}
