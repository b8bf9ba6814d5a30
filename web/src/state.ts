/**
 * The page's state and everything that changes it: the event stream, threads, the inbox of
 * pending questions across threads, the selected thread's transcript. Components read `app`
 * through `useApp()` (re-rendered on every `changed()`) and call the actions here.
 *
 * Stream contract (requirements S4):
 * - `GET /event?responder=web` makes this page a responder for every thread while it is open;
 * - the browser's own reconnects resume with Last-Event-ID; every `ready` after a dropped
 *   connection (a restarted server too) and every `gap` refetch threads and questions, and a
 *   sheet whose request is no longer pending then closes. A stream the browser gave up on is
 *   opened again after 1, 2, 4 … 30 s (at once when the page comes back or the network does)
 *   while the server answers or is unreachable; a refused token stops it and asks for one;
 * - events of the selected thread that arrive while its history loads are held and applied
 *   after it, so nothing is lost or drawn twice. Only the latest load of a thread counts: one
 *   started while another is in flight (a refetch during the selection's own load) takes over,
 *   holding everything from its start on, and the older answer is dropped whenever it comes.
 */
import type { Event, Stamped } from "../../src/protocol/events.js";
import type { ThreadDetail, ThreadSummary } from "../../src/protocol/http.js";
import type { QuestionOutcome, QuestionRequest, Responder } from "../../src/protocol/questions.js";
import { threadTitle } from "../../src/util/thread-title.js";
import { childEvent, threadStarted } from "./agents.js";
import { ApiError, api, enc, getToken } from "./api.js";
import { fork, restore, rewind } from "./branches.js";
import { Transcript } from "./lib/transcript.js";
import * as Notify from "./notify.js";

export { app, type Conn, changed, type Settled, useApp } from "./app-state.js";

import { app, type Conn, changed, type Settled } from "./app-state.js";

export const serverNow = () => Date.now() + app.skew;
export const responder = () => ({ kind: "web" as const, id: app.clientId });
export function basename(p: string): string {
  const parts = String(p).split(/[\\/]/).filter(Boolean);
  return parts[parts.length - 1] || p;
}
export const shortId = (id: string) => (id.length > 8 ? id.slice(-6) : id);
export function threadName(id: string): string {
  const t = app.threads.get(id);
  return t ? t.title || basename(t.cwd) : "thread";
}
/** Pending requests in the one queue order (Q16): approvals first, then oldest first. */
export function queue(): QuestionRequest[] {
  return [...app.questions.values()].sort(
    (a, b) => Number(!!b.approval) - Number(!!a.approval) || a.created_at - b.created_at,
  );
}
export function waitingIn(threadId: string): number {
  let n = 0;
  for (const r of app.questions.values()) if (r.thread_id === threadId) n++;
  return n;
}

// ---- event stream ----------------------------------------------------------------------------
let es: EventSource | null = null;
let lastSeq: number | null = null;
/** The selected thread's latest history load and the events held back while it runs. */
let loading: { id: string; held: Event[] } | null = null;

function setConn(state: Conn, text: string) {
  app.conn = state;
  app.connText = text;
  changed();
}

/** Whether a refetch ever answered: the first one's questions are not news. */
let connectedOnce = false;
/** Delay before opening a stream the browser gave up on; doubles per failure up to 30 s. */
let backoff = 1000;
let retry: ReturnType<typeof setTimeout> | undefined;

export function connect(): void {
  es?.close();
  clearTimeout(retry);
  setConn("connecting", "connecting…");
  let url = `/event?responder=web&token=${enc(getToken() ?? "")}`;
  if (lastSeq !== null) url += `&since=${lastSeq}`;
  const source = new EventSource(url);
  es = source;
  // A fresh stream, or one back after an error, refetches: the server may have restarted.
  let stale = true;
  source.addEventListener("ready", (m) => {
    const d = JSON.parse((m as MessageEvent).data);
    app.skew = d.server_time - Date.now();
    backoff = 1000;
    setConn("live", "live");
    if (stale) {
      stale = false;
      void refetch();
    }
  });
  source.addEventListener("gap", () => void refetch());
  source.onmessage = (m) => {
    let s: Stamped;
    try {
      s = JSON.parse(m.data);
    } catch {
      return;
    }
    lastSeq = s.seq;
    onEvent(s.event);
  };
  source.onerror = () => {
    if (es !== source) return;
    stale = true;
    if (source.readyState !== EventSource.CLOSED) return setConn("connecting", "reconnecting…");
    es = null;
    setConn("offline", "disconnected; retrying…");
    // A 401 (a new token on the server) stops here: api() asks for the token.
    api("GET", "/thread?limit=1").then(later, (e) => {
      if (!(e instanceof ApiError && e.status === 401)) later();
    });
  };
}

function later(): void {
  clearTimeout(retry);
  retry = setTimeout(connect, backoff);
  backoff = Math.min(backoff * 2, 30_000);
}

/** Back at once when the page is shown again or the network returns. */
export function reconnectSoon(): void {
  if (es || !app.authed) return;
  backoff = 1000;
  connect();
}

export function disconnect(): void {
  clearTimeout(retry);
  es?.close();
  es = null;
}

export async function refetch(): Promise<void> {
  try {
    const [t, q] = await Promise.all([
      api<{ threads: ThreadSummary[]; default_cwd?: string }>("GET", "/thread"),
      api<{ questions: QuestionRequest[]; server_time: number }>("GET", "/question"),
    ]);
    app.skew = q.server_time - Date.now();
    app.defaultCwd = t.default_cwd ?? app.defaultCwd;
    app.threads = new Map(t.threads.map((x) => [x.id, x]));
    const known = app.questions;
    app.questions = new Map();
    for (const r of q.questions) if (!app.settled.has(r.request_id)) app.questions.set(r.request_id, r);
    // Asked while the stream was down (a phone that slept): notify as if it had just arrived.
    if (connectedOnce) for (const r of app.questions.values()) if (!known.has(r.request_id)) maybeNotify(r);
    connectedOnce = true;
    // A sheet left open across a restart or a dropped stream: its request may be gone.
    if (app.sheet && !app.sheet.elsewhere && !app.questions.has(app.sheet.req.request_id)) app.sheet = null;
    if (app.current && !app.threads.has(app.current)) selectThread(null);
    else if (app.current) void loadThread(app.current);
    changed();
    if (app.wanted) openQuestion(app.wanted);
    autoOpen();
  } catch (e) {
    if (!(e instanceof ApiError && e.status === 401))
      setConn("offline", `could not load: ${(e as Error).message}`);
  }
}

function patchThread(id: string, patch: Partial<ThreadSummary>) {
  const t = app.threads.get(id);
  if (t) app.threads.set(id, { ...t, ...patch });
}

function onEvent(e: Event): void {
  switch (e.type) {
    case "thread.started":
      if (!app.threads.has(e.thread_id))
        app.threads.set(e.thread_id, {
          id: e.thread_id,
          parent_id: null,
          cwd: e.cwd,
          model: e.model,
          mode: e.mode,
          title: "",
          status: "idle",
          loaded: true,
          active_turn_id: null,
          pending_questions: 0,
          created_at: Date.now(),
          updated_at: Date.now(),
          usage: null,
        });
      void threadStarted(e.thread_id);
      break;
    case "thread.status_changed":
      patchThread(e.thread_id, { status: e.status });
      break;
    case "turn.started":
      patchThread(e.thread_id, { active_turn_id: e.turn_id, updated_at: Date.now() });
      break;
    case "turn.completed":
      patchThread(e.thread_id, { active_turn_id: null });
      break;
    case "question.requested":
      addQuestion(e.request);
      break;
    case "question.deadline_changed": {
      const r = app.questions.get(e.request_id);
      if (r) app.questions.set(r.request_id, { ...r, deadline: e.deadline });
      if (app.sheet?.req.request_id === e.request_id)
        app.sheet = { ...app.sheet, req: { ...app.sheet.req, deadline: e.deadline } };
      break;
    }
    case "question.answered":
    case "question.declined":
    case "question.timed_out":
    case "question.cancelled":
      questionSettled(e.request_id, {
        type: e.type,
        outcome: e.outcome,
        by: "responder" in e ? e.responder : undefined,
      });
      break;
  }
  // The runtime titles a thread by its first message (src/util/thread-title.ts): so does the list.
  if (e.type === "item.completed" && e.item.type === "user_message" && !app.threads.get(e.thread_id)?.title)
    patchThread(e.thread_id, { title: threadTitle(e.item.text) });
  childEvent(e);
  if ("thread_id" in e && e.thread_id && e.thread_id === app.current) {
    if (loading?.id === e.thread_id) loading.held.push(e);
    else app.transcript.apply(e);
    if (
      e.type === "item.completed" &&
      e.item.type === "user_message" &&
      sentImages?.threadId === e.thread_id
    ) {
      const entry = app.transcript.get(e.item.id);
      if (entry?.kind === "user") app.transcript.put({ ...entry, images: sentImages.images });
      sentImages = null;
    }
  }
  changed();
}

// ---- threads ---------------------------------------------------------------------------------
/** Shows thread `id`; `fresh`: just created here, so it has no history to load. */
export function selectThread(id: string | null, fresh = false): void {
  app.current = id;
  if (id) sessionStorage.setItem("tandem.thread", id);
  else sessionStorage.removeItem("tandem.thread");
  app.transcript = new Transcript();
  app.loadError = "";
  app.drawer = null;
  app.newThread = false;
  app.files = false;
  app.settings = false;
  app.notice = null;
  changed();
  if (id && !fresh) void loadThread(id);
}

async function loadThread(id: string): Promise<void> {
  // A newer load replaces an older one: its answer is at least as new, and it holds every event
  // from its own start on (what came before is in that answer).
  const mine = { id, held: [] as Event[] };
  loading = mine;
  try {
    const d = await api<ThreadDetail>("GET", `/thread/${enc(id)}`);
    if (loading !== mine || app.current !== id) return;
    app.threads.set(id, d.thread);
    for (const r of d.questions) if (!app.settled.has(r.request_id)) app.questions.set(r.request_id, r);
    const t = new Transcript();
    t.load(d.items, d.thread, d.turns, d.approvals);
    t.pending(d.questions);
    app.transcript = t;
  } catch (e) {
    if (loading === mine && app.current === id)
      app.loadError = `Could not load the thread: ${(e as Error).message}`;
  } finally {
    if (loading === mine) {
      loading = null;
      for (const e of mine.held) app.transcript.apply(e);
    }
    changed();
  }
}

/** Sends `text`: a new turn, or steering input while a turn runs; creates a thread if none. */
/** Images of the message being sent: its `user_message` item carries text only. */
let sentImages: { threadId: string; images: string[] } | null = null;

export async function send(text: string, mode: "plan" | "default", images: string[] = []): Promise<void> {
  let id = app.current;
  if (!id) {
    const t = await api<ThreadSummary>("POST", "/thread", { mode });
    app.threads.set(t.id, t);
    // Loading its (empty) history now would race the turn below and draw its first message twice.
    selectThread(t.id, true);
    id = t.id;
  }
  const t = app.threads.get(id);
  // `!cmd` runs the user's own command (README "Your own commands: `!`").
  const own = text.startsWith("!") ? text.slice(1).trim() : "";
  if (own && !t?.active_turn_id) {
    await api("POST", `/thread/${enc(id)}/shell`, { command: own });
    return;
  }
  // `/undo`, `/redo`, `/fork` (README "Undo, redo, fork and rewind"): the server asks first.
  const branch = /^\/(undo|redo|fork)\s*$/.exec(text.trim());
  if (branch && !t?.active_turn_id) {
    if (branch[1] === "fork") await forkThread(id);
    else restore(id, branch[1] as "undo" | "redo");
    return;
  }
  // `/review [base BRANCH | commit SHA | TEXT]`: a read-only review turn (README "Review").
  const review = /^\/review(?:\s+([\s\S]*))?$/.exec(text.trim());
  if (review && !t?.active_turn_id) {
    await api("POST", `/thread/${enc(id)}/review`, { args: review[1] ?? "" });
    return;
  }
  if (t?.active_turn_id) {
    await api("POST", `/thread/${enc(id)}/steer`, { text });
    return;
  }
  sentImages = images.length ? { threadId: id, images } : null;
  await api("POST", `/thread/${enc(id)}/turn`, {
    text,
    ...(images.length ? { images } : {}),
    options: { mode },
  });
}

/** Fork `threadId` (through `turnId`'s turn, or all of it) and show the fork. */
export const forkThread = (threadId: string, turnId?: string) => fork(selectThread, threadId, turnId);
/** Rewind `threadId` to before the message that started `turn` (see branches.ts). */
export const rewindThread = (threadId: string, turn: { id: string; text: string }, restoreCode: boolean) =>
  rewind(selectThread, threadId, turn, restoreCode);

export async function createThread(body: { cwd?: string; model?: string; mode: string }): Promise<void> {
  const t = await api<ThreadSummary>("POST", "/thread", body);
  app.threads.set(t.id, t);
  selectThread(t.id, true);
}

/** Model, effort and mode of the thread's later turns (PATCH /thread/:id/settings). */
export async function saveSettings(
  id: string,
  body: { model?: string; effort?: string | null; mode?: string },
): Promise<void> {
  const t = await api<ThreadSummary>("PATCH", `/thread/${enc(id)}/settings`, body);
  app.threads.set(t.id, t);
  changed();
}

export const interrupt = (id: string) => api("POST", `/thread/${enc(id)}/interrupt`);

// ---- questions -------------------------------------------------------------------------------
function addQuestion(r: QuestionRequest): void {
  if (app.settled.has(r.request_id)) return;
  app.questions.set(r.request_id, r);
  maybeNotify(r);
  autoOpen();
}

/** A notification for a request that arrived while the page is hidden, if the user asked. */
function maybeNotify(r: QuestionRequest): void {
  if (app.notify && document.visibilityState !== "visible")
    void Notify.show(
      r.approval ? "Tandem: approval needed" : "Tandem: a question is waiting",
      `${threadName(r.agent?.root_thread_id ?? r.thread_id)}: ${r.questions[0].prompt}`,
      r.thread_id,
      r.request_id,
    ).then((why) => {
      app.notifyError = why ?? "";
      changed();
    });
}

function questionSettled(id: string, how: Settled): void {
  app.settled.add(id);
  app.questions.delete(id);
  Notify.clear(id);
  if (app.sheet?.req.request_id !== id) return;
  if (how.by && how.by.id === app.clientId) {
    closeQuestion();
    autoOpen();
  } else app.sheet = { ...app.sheet, elsewhere: how };
}

/** Opens the first pending request unless one is open, it was put off, or the user is typing. */
export function autoOpen(): void {
  if (app.sheet) return;
  const box = document.getElementById("composer-text") as HTMLTextAreaElement | null;
  if (box && document.activeElement === box && box.value !== "") return;
  const next = queue().find((r) => !app.later.has(r.request_id));
  if (next) openQuestion(next.request_id);
}

export function openQuestion(id: string): void {
  const r = app.questions.get(id);
  if (!r) return;
  if (app.wanted === id) app.wanted = null;
  app.later.delete(id);
  app.sheet = { req: r, elsewhere: null };
  app.drawer = null;
  // With no thread on screen, show the one that asks, so its transcript follows the answer.
  if (!app.current) selectThread(r.thread_id);
  changed();
}

export function closeQuestion(putOff = false): void {
  if (putOff && app.sheet && !app.sheet.elsewhere) app.later.add(app.sheet.req.request_id);
  app.sheet = null;
  changed();
}

/** Replies or declines the open request; a request already settled shows "elsewhere". */
export async function settle(action: "reply" | "reject", body: Record<string, unknown>): Promise<void> {
  const r = app.sheet?.req;
  if (!r) return;
  try {
    await api("POST", `/question/${enc(r.request_id)}/${action}`, {
      thread_id: r.thread_id,
      ...body,
      responder: responder(),
    });
    app.settled.add(r.request_id);
    app.questions.delete(r.request_id);
    if (app.sheet?.req === r) app.sheet = null;
    changed();
    autoOpen();
  } catch (e) {
    if (app.sheet?.req.request_id !== r.request_id) return;
    if (e instanceof ApiError && (e.status === 409 || e.status === 404)) {
      app.sheet = {
        ...app.sheet,
        elsewhere: { type: "question.cancelled", outcome: { status: "cancelled", reason: e.message } },
      };
      changed();
      return;
    }
    throw e;
  }
}

export function setNotify(on: boolean, why = ""): void {
  app.notify = on;
  app.notifyError = why;
  localStorage.setItem("tandem.notify", on ? "1" : "0");
  changed();
}

/**
 * Opens what a deep link or a notification names: its thread, and its question as soon as it
 * is pending here (now, or after the next refetch).
 */
export function openLink(thread: string | undefined, question: string | undefined): void {
  const r = question ? app.questions.get(question) : undefined;
  const id = r?.agent?.root_thread_id ?? r?.thread_id ?? thread;
  if (id && id !== app.current) selectThread(id);
  if (!question) return;
  app.wanted = question;
  if (r) openQuestion(question);
}
