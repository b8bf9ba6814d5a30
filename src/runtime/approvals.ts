/**
 * Approvals (requirements A2, A3; README "Sandbox and approvals"): turn a tool's ApprovalAsk into a request on the
 * broker's queue (approvals go first), and remember what the user allowed.
 *
 * - No responder attached (headless): `decline` without waiting, whatever was allowed before —
 *   session grants and remembered rules apply only when someone could have been asked.
 * - accept: this once. accept_for_session: exactly this command string in this directory (or a
 *   patch touching only already-approved paths), in this thread, without asking again; never the
 *   model's proposed prefix rule.
 * - accept_and_remember: stores the rule `ruleFor(ask)` per project in the store, surviving
 *   restarts: the model's `prefix_rule` when it is a prefix of the command's words, else the
 *   command's own words (the exact command). A command that is not one plain simple command
 *   (compound, substitutions, …) has no rule: remembering then allows the exact command for the
 *   session. The prompt, the option's description and `approval.prefix_rule` show that rule.
 * - A rule approves a command only when every simple command in it starts with a rule
 *   (`matchesRules`): `git status; rm -rf x` is not covered by ["git"].
 * - decline: the model is told; cancel: the turn is interrupted. Timeouts never approve.
 * - An approval over a cap of `[questions]` (questions/limits.ts) is not asked: `request` throws
 *   an Error naming the cap, which the tool's output carries; nothing runs.
 */
import type { QuestionOutcome, QuestionPolicy, QuestionRequest } from "../protocol/questions.js";
import { APPROVAL_LABELS, type ApprovalDecisionName } from "../protocol/questions.js";
import { requestIdFor } from "../questions/broker.js";
import type { Store } from "../store/types.js";
import { commandWords, isPrefix, matchesRules } from "../tools/exec/safe-commands.js";
import type { ApprovalAsk, ApprovalDecision } from "../tools/types.js";
import { AbortError } from "../util/abort.js";
import { projectDirs } from "./context.js";
import type { ApprovingThread } from "./host.js";

const DESCRIPTIONS: Record<ApprovalDecisionName, string> = {
  accept: "Run it this once",
  accept_for_session: "Allow it for the rest of this session",
  accept_and_remember: "Allow it and remember the rule for this project",
  decline: "Do not run it; the model is told",
  cancel: "Do not run it and stop the turn",
};

/** The rule "Accept and remember" would store for `ask` (see the module contract), or null. */
export function ruleFor(ask: ApprovalAsk): string[] | null {
  if (ask.kind !== "exec" || !ask.command) return null;
  const words = commandWords(ask.command);
  if (!words?.length) return null;
  return ask.prefix_rule && isPrefix(ask.prefix_rule, words) ? [...ask.prefix_rule] : words;
}

const shown = (words: string[]) => `\`${words.join(" ")}\``;

function descriptions(ask: ApprovalAsk, rule: string[] | null): Record<ApprovalDecisionName, string> {
  if (ask.kind !== "exec") return DESCRIPTIONS;
  return {
    ...DESCRIPTIONS,
    accept_for_session: "Allow this exact command again in this directory for the rest of this session",
    accept_and_remember: rule
      ? `Remember the rule ${shown(rule)} for this project: commands starting with it run without asking`
      : "No rule can be stored for this command (not a single plain command); allows this exact command for this session",
  };
}

/** The project whose remembered rules apply in `cwd`: its git root, else `cwd` itself. */
export function rulesProject(cwd: string): string {
  return projectDirs(cwd)[0];
}

/** Rules remembered for `cwd`'s project, as stored (`prefix_rules:<project>` in the store meta). */
export function storedRules(store: Pick<Store, "getMeta">, cwd: string): string[][] {
  const raw = store.getMeta(`prefix_rules:${rulesProject(cwd)}`);
  let parsed: unknown;
  try {
    parsed = raw ? JSON.parse(raw) : [];
  } catch {
    return [];
  }
  if (!Array.isArray(parsed)) return [];
  return parsed.filter(
    (r): r is string[] => Array.isArray(r) && r.length > 0 && r.every((w) => typeof w === "string"),
  );
}

/** Replaces the rules remembered for `cwd`'s project (`tandem rules remove`, remembering). */
export function setStoredRules(store: Pick<Store, "setMeta">, cwd: string, rules: string[][]): void {
  store.setMeta(`prefix_rules:${rulesProject(cwd)}`, JSON.stringify(rules));
}

const sessionKey = (cwd: string, command: string) => `${cwd}\0${command}`;

/** What approvals need of the runtime: the rules' meta rows, stored approvals, who can answer, the broker. */
export interface ApprovalsHost {
  readonly store: Pick<Store, "getMeta" | "setMeta" | "pendingQuestions">;
  readonly responders: { has(threadId: string): boolean };
  ask(request: QuestionRequest, signal: AbortSignal): Promise<QuestionOutcome>;
  /** PermissionRequest hooks (hooks.ts): `accept`/`decline` before anyone is asked, else undefined. */
  permission?(
    thread: ApprovingThread,
    turnId: string,
    ask: ApprovalAsk,
    signal: AbortSignal,
  ): Promise<"accept" | "decline" | undefined>;
}

export class Approvals {
  private session = new Map<string, { commands: Set<string>; paths: Set<string> }>();
  private counters = new Map<string, number>();

  constructor(private readonly host: ApprovalsHost) {}

  /** Prefix rules remembered for the project containing `cwd` (malformed entries are ignored). */
  rules(cwd: string): string[][] {
    return storedRules(this.host.store, cwd);
  }

  private remember(cwd: string, rule: string[]): void {
    const rules = this.rules(cwd);
    if (!rules.some((r) => r.join("\0") === rule.join("\0"))) rules.push(rule);
    setStoredRules(this.host.store, cwd, rules);
  }

  private sessionOf(threadId: string) {
    let s = this.session.get(threadId);
    if (!s) {
      s = { commands: new Set(), paths: new Set() };
      this.session.set(threadId, s);
    }
    return s;
  }

  preApproved(threadId: string, ask: ApprovalAsk): boolean {
    const s = this.sessionOf(threadId);
    if (ask.kind === "file_change") return !!ask.paths?.length && ask.paths.every((p) => s.paths.has(p));
    if (!ask.command) return false;
    if (s.commands.has(sessionKey(ask.cwd, ask.command))) return true;
    return matchesRules(ask.command, this.rules(ask.cwd));
  }

  async request(
    thread: ApprovingThread,
    turnId: string,
    callId: string,
    ask: ApprovalAsk,
    policy: QuestionPolicy,
    signal: AbortSignal,
  ): Promise<ApprovalDecision> {
    // Headless first: a planted rule or a session grant must not approve when nobody could answer.
    if (!this.host.responders.has(thread.id)) return "unavailable";
    if (this.preApproved(thread.id, ask)) return "accept";
    // A PermissionRequest hook may decide before anyone is asked (runtime/hooks.ts).
    const byHook = await this.host.permission?.(thread, turnId, ask, signal);
    if (byHook) return byHook;
    // A re-run after a restart asks the approval that is still pending for this call.
    const stored = this.host.store
      .pendingQuestions(thread.id)
      .find((q) => q.approval && q.call_id === callId);
    const n = (this.counters.get(callId) ?? 0) + 1;
    this.counters.set(callId, n);
    const rule = ruleFor(ask);
    const subject =
      ask.kind === "exec" ? `Run \`${ask.command}\`?` : `Apply changes to ${ask.paths?.join(", ")}?`;
    const ruleLine =
      ask.kind !== "exec"
        ? ""
        : rule
          ? `\nAccept and remember stores the rule ${shown(rule)} (commands starting with these words).`
          : "\nAccept and remember cannot store a rule for this command.";
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
          prompt: `${subject}\n${ask.reason}${ruleLine}`,
          kind: "single",
          options: (Object.keys(APPROVAL_LABELS) as ApprovalDecisionName[]).map((k) => ({
            label: APPROVAL_LABELS[k],
            description: descriptions(ask, rule)[k],
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
        // The rule that "Accept and remember" stores (not the model's proposal as is).
        ...(rule ? { prefix_rule: rule } : {}),
        ...(ask.paths !== undefined ? { paths: ask.paths } : {}),
        ...(ask.changes !== undefined ? { changes: ask.changes } : {}),
      },
    };
    const outcome = await this.host.ask(request, signal);
    if (outcome.status === "cancelled") throw new AbortError(outcome.reason);
    // Over a cap (questions/limits.ts): not asked, nothing runs; the tool's output says which cap.
    if (outcome.status === "unavailable" && outcome.limit)
      throw new Error(`approval ${outcome.reason.replace(/^not asked/, "not requested")}`);
    // Nobody saw it (the client could not show it, or gave up): not the user's decision.
    if (outcome.status === "unavailable") return "unavailable";
    if (outcome.status !== "answered") return "decline";
    const label = outcome.answers.decision?.selected[0];
    const decision =
      (Object.keys(APPROVAL_LABELS) as ApprovalDecisionName[]).find((k) => APPROVAL_LABELS[k] === label) ??
      "decline";
    if (decision === "accept_for_session" && ask.kind === "file_change") {
      for (const p of ask.paths ?? []) this.sessionOf(thread.id).paths.add(p);
    }
    if (decision === "accept_for_session" && ask.command) {
      this.sessionOf(thread.id).commands.add(sessionKey(ask.cwd, ask.command));
    }
    if (decision === "accept_and_remember") {
      if (rule) this.remember(ask.cwd, rule);
      else if (ask.command) this.sessionOf(thread.id).commands.add(sessionKey(ask.cwd, ask.command));
    }
    if (decision === "cancel") thread.interrupt("cancelled by the user at an approval");
    return decision;
  }

  dropThread(threadId: string): void {
    this.session.delete(threadId);
  }
}
