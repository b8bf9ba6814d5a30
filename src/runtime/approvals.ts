/**
 * Approvals (SPEC A2, A3): turn a tool's ApprovalAsk into a request on the broker's queue
 * (approvals go first), and remember what the user allowed.
 *
 * - accept: this once; accept_for_session: the same command (or the model's prefix rule), or
 *   a patch touching only already-approved paths, in this thread without asking again; accept_and_remember: the prefix rule (or the exact
 *   command) persisted per project in the store, surviving restarts; decline: the model is
 *   told; cancel: the turn is interrupted.
 * - Timeouts never approve: a timed-out approval is a decline, whatever `on_timeout` says.
 * - No responder attached (headless): `decline` without waiting — the policy decides.
 */
import type { QuestionPolicy, QuestionRequest } from "../protocol/questions.js";
import { APPROVAL_LABELS, type ApprovalDecisionName } from "../protocol/questions.js";
import { requestIdFor } from "../questions/broker.js";
import { commandWords, matchesPrefix } from "../tools/exec/safe-commands.js";
import type { ApprovalAsk, ApprovalDecision } from "../tools/types.js";
import { AbortError } from "../util/abort.js";
import { projectDirs } from "./context.js";
import type { Runtime } from "./core.js";
import type { Thread } from "./thread.js";

const DESCRIPTIONS: Record<ApprovalDecisionName, string> = {
  accept: "Run it this once",
  accept_for_session: "Allow it for the rest of this session",
  accept_and_remember: "Allow it and remember the rule for this project",
  decline: "Do not run it; the model is told",
  cancel: "Do not run it and stop the turn",
};

export class Approvals {
  private session = new Map<string, { commands: Set<string>; prefixes: string[][]; paths: Set<string> }>();
  private counters = new Map<string, number>();

  constructor(private readonly rt: Runtime) {}

  private key(cwd: string): string {
    return `prefix_rules:${projectDirs(cwd)[0]}`;
  }

  /** Prefix rules remembered for the project containing `cwd`. */
  rules(cwd: string): string[][] {
    const raw = this.rt.store.getMeta(this.key(cwd));
    return raw ? (JSON.parse(raw) as string[][]) : [];
  }

  private remember(cwd: string, rule: string[]): void {
    const rules = this.rules(cwd);
    if (!rules.some((r) => r.join("\0") === rule.join("\0"))) rules.push(rule);
    this.rt.store.setMeta(this.key(cwd), JSON.stringify(rules));
  }

  private sessionOf(threadId: string) {
    let s = this.session.get(threadId);
    if (!s) {
      s = { commands: new Set(), prefixes: [], paths: new Set() };
      this.session.set(threadId, s);
    }
    return s;
  }

  preApproved(threadId: string, ask: ApprovalAsk): boolean {
    const s = this.sessionOf(threadId);
    if (ask.kind === "file_change") return !!ask.paths?.length && ask.paths.every((p) => s.paths.has(p));
    if (!ask.command) return false;
    if (s.commands.has(ask.command)) return true;
    const prefixes = [...s.prefixes, ...this.rules(ask.cwd)];
    return prefixes.some((p) => matchesPrefix(ask.command!, p));
  }

  async request(
    thread: Thread,
    turnId: string,
    callId: string,
    ask: ApprovalAsk,
    policy: QuestionPolicy,
    signal: AbortSignal,
  ): Promise<ApprovalDecision> {
    if (this.preApproved(thread.id, ask)) return "accept";
    if (!this.rt.responders.has(thread.id)) return "decline";
    // A re-run after a restart asks the approval that is still pending for this call.
    const stored = this.rt.store.pendingQuestions(thread.id).find((q) => q.approval && q.call_id === callId);
    const n = (this.counters.get(callId) ?? 0) + 1;
    this.counters.set(callId, n);
    const subject =
      ask.kind === "exec" ? `Run \`${ask.command}\`?` : `Apply changes to ${ask.paths?.join(", ")}?`;
    const request: QuestionRequest = {
      request_id: stored?.request_id ?? requestIdFor(thread.id, `${callId}#approval${n}`),
      thread_id: thread.id,
      turn_id: turnId,
      call_id: callId,
      source: "internal",
      questions: [
        {
          id: "decision",
          header: ask.kind === "exec" ? "Approve" : "Approve edit",
          prompt: `${subject}\n${ask.reason}`,
          kind: "single",
          options: (Object.keys(APPROVAL_LABELS) as ApprovalDecisionName[]).map((k) => ({
            label: APPROVAL_LABELS[k],
            description: DESCRIPTIONS[k],
          })),
          allow_other: false,
          secret: false,
        },
      ],
      policy,
      deadline: null,
      created_at: stored?.created_at ?? Date.now(),
      approval: {
        kind: ask.kind,
        reason: ask.reason,
        cwd: ask.cwd,
        ...(ask.command !== undefined ? { command: ask.command } : {}),
        ...(ask.justification !== undefined ? { justification: ask.justification } : {}),
        ...(ask.prefix_rule !== undefined ? { prefix_rule: ask.prefix_rule } : {}),
        ...(ask.paths !== undefined ? { paths: ask.paths } : {}),
      },
    };
    const outcome = await this.rt.broker.ask(request, signal);
    if (outcome.status === "cancelled") throw new AbortError(outcome.reason);
    if (outcome.status !== "answered") return "decline";
    const label = outcome.answers.decision?.selected[0];
    const decision =
      (Object.keys(APPROVAL_LABELS) as ApprovalDecisionName[]).find((k) => APPROVAL_LABELS[k] === label) ??
      "decline";
    const rule = ask.prefix_rule?.length ? ask.prefix_rule : ask.command ? commandWords(ask.command) : null;
    if (decision === "accept_for_session" && ask.kind === "file_change") {
      for (const p of ask.paths ?? []) this.sessionOf(thread.id).paths.add(p);
    }
    if (decision === "accept_for_session" && ask.command) {
      const s = this.sessionOf(thread.id);
      s.commands.add(ask.command);
      if (ask.prefix_rule?.length) s.prefixes.push(ask.prefix_rule);
    }
    if (decision === "accept_and_remember") {
      if (rule) this.remember(ask.cwd, rule);
      else if (ask.command) this.sessionOf(thread.id).commands.add(ask.command);
    }
    if (decision === "cancel") thread.interrupt("cancelled by the user at an approval");
    return decision;
  }

  dropThread(threadId: string): void {
    this.session.delete(threadId);
  }
}
