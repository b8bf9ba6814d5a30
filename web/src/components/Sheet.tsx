/**
 * The question / approval sheet (requirements Q7, Q13, Q16, A3). Its head (title, countdown, who asks)
 * and its actions (Decline, Later, Submit) stay on screen at any form length and screen size:
 * only the questions scroll between them.
 *
 * Behaviour:
 * - keyboard first: digits pick options of the current question, Enter moves to the next
 *   question and submits on the last, Esc declines (or closes a settled sheet); a confirm step
 *   when some questions are unanswered; required ones are checked before sending;
 * - a countdown from the request's deadline (server clock) for timeout policies; any
 *   interaction calls touch (at most every 2 s), which snoozes the deadline;
 * - when another surface settles the request, it says so ("Answered elsewhere by tui: …"),
 *   disables the form and offers Close;
 * - approvals show what would run (command, directory, reason) with control and bidi characters
 *   made visible, so the user approves what they read.
 */
import { useEffect, useRef, useState } from "react";
import { elicitationLabel, type QuestionRequest } from "../../../src/protocol/questions.js";
import { printable } from "../../../src/util/printable.js";
import { api, enc } from "../api.js";
import { type Draft, initialAnswer, needsText, toAnswer } from "../lib/answer.js";
import { describeAnswers } from "../lib/transcript.js";
import {
  app,
  closeQuestion,
  responder,
  type Settled,
  serverNow,
  settle,
  shortId,
  threadName,
} from "../state.js";
import { Field } from "./Field.js";

const TOUCH_EVERY_MS = 2000;

function fmtLeft(ms: number): string {
  const s = Math.max(0, Math.ceil(ms / 1000));
  return `${Math.floor(s / 60)}:${String(s % 60).padStart(2, "0")}`;
}
function elsewhereText(s: Settled): string {
  const who = s.by ? ` by ${s.by.kind}` : "";
  const o = s.outcome as any;
  const given = o?.answers ? describeAnswers(o.answers) : "";
  if (s.type === "question.answered") return `Answered elsewhere${who}${given ? `: ${given}` : "."}`;
  if (s.type === "question.declined") return `Declined elsewhere${who}.`;
  if (s.type === "question.timed_out")
    return `Timed out; the ${o?.policy?.on_timeout} policy answered for you.`;
  return `Cancelled${o?.reason ? ` (${o.reason})` : ""}.`;
}
function countdownText(r: QuestionRequest): string | null {
  if (r.deadline === null || r.policy.type !== "timeout") return null;
  // Never more than the policy allows: clock-skew estimates are only good to a few ms.
  const left = Math.min(r.policy.ms, r.deadline - serverNow());
  const then =
    { recommended: "picks the recommended option", empty: "goes on without an answer", decline: "declines" }[
      r.policy.on_timeout
    ] ?? "times out";
  return `${fmtLeft(left)} left, then ${then}`;
}

function Approval({ r }: { r: QuestionRequest }) {
  const a = r.approval!;
  return (
    <div className="approval">
      <p className="approval-reason">{printable(a.reason)}</p>
      {a.command !== undefined && <pre className="approval-cmd">{printable(a.command)}</pre>}
      {a.paths?.length ? (
        <ul className="approval-paths">
          {a.paths.map((p) => (
            <li key={p}>{printable(p)}</li>
          ))}
        </ul>
      ) : null}
      <p className="muted">in {printable(a.cwd)}</p>
      {a.justification && a.justification !== a.reason && (
        <p className="muted">Why: {printable(a.justification)}</p>
      )}
    </div>
  );
}

export function Sheet({ req, elsewhere }: { req: QuestionRequest; elsewhere: Settled | null }) {
  const [drafts, setDrafts] = useState<Draft[]>(() => req.questions.map(initialAnswer));
  const [cur, setCur] = useState(0);
  const [confirm, setConfirm] = useState<null | { text: string; ok: string; action: () => void }>(null);
  const [error, setError] = useState("");
  const [busy, setBusy] = useState(false);
  const [, setTick] = useState(0);
  const formRef = useRef<HTMLFormElement>(null);
  const lastTouch = useRef(0);
  const done = elsewhere !== null;

  useEffect(() => {
    const t = setInterval(() => setTick((n) => n + 1), 500);
    return () => clearInterval(t);
  }, []);
  const focusQuestion = (i: number) => {
    const all = formRef.current?.querySelectorAll<HTMLFieldSetElement>("fieldset.q");
    if (!all?.[i]) return;
    setCur(i);
    const target = all[i].querySelector<HTMLInputElement>("input:checked") ?? all[i].querySelector("input");
    target?.focus();
  };
  // biome-ignore lint/correctness/useExhaustiveDependencies: focus once per request
  useEffect(() => focusQuestion(0), [req.request_id]);
  useEffect(() => {
    if (done) document.getElementById("q-later")?.focus();
  }, [done]);

  const touch = () => {
    if (done || req.policy.type !== "timeout") return;
    const now = Date.now();
    if (now - lastTouch.current < TOUCH_EVERY_MS) return;
    lastTouch.current = now;
    api("POST", `/question/${enc(req.request_id)}/touch`, { responder: responder() }).catch(() => {});
  };

  const run = async (action: "reply" | "reject", body: Record<string, unknown>) => {
    setBusy(true);
    setError("");
    try {
      await settle(action, body);
    } catch (e) {
      setError((e as Error).message);
    } finally {
      setBusy(false);
    }
  };
  const decline = () => {
    if (done) return;
    setConfirm(null);
    void run("reject", { reason: "declined in the web page" });
  };
  const submit = (force: boolean) => {
    if (done) return;
    const untyped = req.questions.findIndex((q, i) => needsText(q, drafts[i]));
    if (untyped >= 0) {
      const q = req.questions[untyped];
      setError(`"${q.header || q.id}": you chose Other…; type your answer, or pick an option`);
      focusQuestion(untyped);
      return;
    }
    const answers: Record<string, unknown> = {};
    const unanswered = req.questions.filter((q, i) => {
      const a = toAnswer(q, drafts[i]);
      if (a) answers[q.id] = a;
      return !a;
    });
    const missing = unanswered.find((q) => q.required === true && q.default === undefined);
    if (missing) {
      setError(`"${missing.header || missing.id}" is required`);
      focusQuestion(req.questions.indexOf(missing));
      return;
    }
    const optional = unanswered.every((q) => q.required === false);
    if (Object.keys(answers).length === 0 && !optional) {
      setConfirm({
        text: "Nothing is answered yet. Answer at least one question, or decline to let the agent go on without answers.",
        ok: "Decline",
        action: decline,
      });
      return;
    }
    if (unanswered.length && !force && !optional) {
      const names = unanswered.map((q) => q.header || q.id).join(", ");
      setConfirm({
        text: `${unanswered.length} of ${req.questions.length} unanswered (${names}). Submit anyway?`,
        ok: "Submit anyway",
        action: () => submit(true),
      });
      return;
    }
    setConfirm(null);
    void run("reply", { answers });
  };

  const latest = useRef({ submit, decline, confirm, cur, done, focusQuestion });
  latest.current = { submit, decline, confirm, cur, done, focusQuestion };
  useEffect(() => {
    const onKey = (ev: KeyboardEvent) => {
      const L = latest.current;
      const t = ev.target as HTMLElement;
      if (ev.key === "Escape") {
        ev.preventDefault();
        if (L.confirm) setConfirm(null);
        else if (L.done) closeQuestion();
        else L.decline();
        return;
      }
      if (ev.key === "Enter" && !ev.shiftKey && !ev.isComposing) {
        if (t.tagName === "BUTTON" || t.tagName === "A") return;
        ev.preventDefault();
        if (L.confirm) L.confirm.action();
        else if (L.done) closeQuestion();
        else if (L.cur < req.questions.length - 1) L.focusQuestion(L.cur + 1);
        else L.submit(false);
        return;
      }
      const typing = t.tagName === "INPUT" && !["radio", "checkbox"].includes((t as HTMLInputElement).type);
      if (!typing && !L.done && /^[1-9]$/.test(ev.key) && !ev.ctrlKey && !ev.metaKey && !ev.altKey) {
        const fs = formRef.current?.querySelectorAll("fieldset.q")[L.cur];
        const choice = fs?.querySelectorAll<HTMLInputElement>("input[type=radio], input[type=checkbox]")[
          Number(ev.key) - 1
        ];
        if (!choice) return;
        ev.preventDefault();
        choice.click();
        // Choosing "Other…" moved the focus to its text field (Field.tsx): leave it there.
        if (document.activeElement !== fs?.querySelector("input.other")) choice.focus();
      }
    };
    document.addEventListener("keydown", onKey);
    return () => document.removeEventListener("keydown", onKey);
  }, [req]);

  const n = req.questions.length;
  const title = req.approval
    ? req.approval.kind === "exec"
      ? "Run this command?"
      : "Apply these changes?"
    : n > 1
      ? `${n} questions`
      : req.questions[0].header || "Question";
  // A sub-agent's request names it (requirements Q14); read loosely, older servers do not send it.
  const agent = (req as { agent?: { nickname?: string; role?: string } }).agent;
  const asker = req.elicitation
    ? `MCP server "${req.elicitation.server}" asks`
    : agent?.nickname
      ? `Sub-agent ${agent.nickname}${agent.role && agent.role !== "default" ? ` (${agent.role})` : ""} asks`
      : req.source === "internal"
        ? "Tandem asks"
        : "The agent asks";
  const left = done ? null : countdownText(req);
  const urgent = left !== null && req.deadline !== null && req.deadline - serverNow() < 10_000;
  return (
    <div id="sheet" className="sheet">
      <div className="sheet-body" role="dialog" aria-modal="true" aria-labelledby="q-title">
        <form
          id="q-form"
          ref={formRef}
          className="sheet-form"
          noValidate
          onSubmit={(ev) => {
            ev.preventDefault();
            submit(false);
          }}
          onInput={touch}
          onChange={touch}
          onKeyDown={touch}
          onPointerDown={touch}
          onFocus={(ev) => {
            const fs = (ev.target as HTMLElement).closest?.("fieldset.q") as HTMLElement | null;
            if (fs) setCur(Number(fs.dataset.index));
          }}
        >
          <div className="q-head">
            <h2 id="q-title">{printable(title)}</h2>
            {left !== null && (
              <span id="q-countdown" className="countdown" data-urgent={urgent ? "1" : undefined}>
                {left}
              </span>
            )}
          </div>
          <p id="q-thread" className="muted">
            {asker} · {threadName(req.thread_id)} · {shortId(req.thread_id)}
          </p>
          {done && (
            <p id="q-banner" className="banner" role="status">
              {elsewhereText(elsewhere)}
            </p>
          )}
          <div id="q-list" className="q-scroll">
            {req.elicitation && (
              <p id="q-notice" className="q-notice" role="note">
                {printable(elicitationLabel(req.elicitation))}
              </p>
            )}
            {req.elicitation && <p className="q-message">{printable(req.elicitation.message)}</p>}
            {req.elicitation?.url && (
              <p>
                <a href={req.elicitation.url} target="_blank" rel="noopener noreferrer">
                  Open {printable(req.elicitation.url)}
                </a>
              </p>
            )}
            {req.approval && <Approval r={req} />}
            {req.questions.map((q, i) => (
              <Field
                key={q.id}
                q={q}
                index={i}
                draft={drafts[i]}
                current={i === cur}
                disabled={done}
                // The approval block above says what and why; the prompt would repeat it.
                legend={req.approval ? "Your decision" : undefined}
                onChange={(d) => setDrafts((all) => all.map((x, k) => (k === i ? d : x)))}
              />
            ))}
          </div>
          {confirm && (
            <div id="q-confirm" className="confirm" role="alert">
              <p id="q-confirm-text">{confirm.text}</p>
              <div className="row">
                <button
                  id="q-confirm-back"
                  type="button"
                  className="secondary"
                  onClick={() => setConfirm(null)}
                >
                  Go back
                </button>
                <button id="q-confirm-ok" type="button" onClick={() => confirm.action()}>
                  {confirm.ok}
                </button>
              </div>
            </div>
          )}
          {error && (
            <p id="q-error" className="error" role="alert">
              {error}
            </p>
          )}
          <div className="q-actions">
            {!done && (
              <button
                id="q-decline"
                type="button"
                className="secondary danger"
                disabled={busy}
                onClick={decline}
              >
                Decline <kbd>Esc</kbd>
              </button>
            )}
            <button id="q-later" type="button" className="secondary" onClick={() => closeQuestion(true)}>
              {done ? "Close" : "Later"}
            </button>
            <span className="grow" />
            {!done && (
              <button id="q-submit" type="submit" disabled={busy}>
                Submit <kbd>Enter</kbd>
              </button>
            )}
          </div>
          <p className="hint">
            Digits pick an option · Enter goes to the next question, then submits · Esc declines
          </p>
        </form>
      </div>
    </div>
  );
}

/** The sheet for `app.sheet`, remounted per request so its drafts start fresh. */
export function SheetHost() {
  const s = app.sheet;
  return s ? <Sheet key={s.req.request_id} req={s.req} elsewhere={s.elsewhere} /> : null;
}
