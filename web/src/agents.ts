/**
 * Sub-agent transcripts shown nested in their parent's (README "Sub-agents"): each expanded sub-agent block
 * watches its child's thread — history from `GET /thread/:id`, then the live events of that
 * thread from the page's one event stream (state.ts hands every event to `childEvent`).
 *
 * Contract:
 * - `watchChild(id)` counts watchers (the same child may be expanded twice, e.g. nested in its
 *   parent's and its grandparent's view); the view is dropped when the last one stops watching.
 * - Events of a child that arrive while its history loads are held and applied after it, so
 *   nothing is lost or drawn twice (the same rule as the selected thread's transcript).
 * - A failed load keeps the error text for the view; watching again retries.
 * - `threadStarted(id)`: a thread the stream just announced is fetched once, so the thread
 *   list learns its parent and who it is (`thread.started` carries neither).
 */
import type { Event } from "../../src/protocol/events.js";
import type { ThreadDetail } from "../../src/protocol/http.js";
import { api, enc } from "./api.js";
import { app, changed } from "./app-state.js";
import { Transcript } from "./lib/transcript.js";

export interface ChildView {
  transcript: Transcript;
  loading: boolean;
  error: string;
  watchers: number;
  held: Event[];
}

export const children = new Map<string, ChildView>();

export function watchChild(id: string): void {
  const v = children.get(id);
  if (v) {
    v.watchers++;
    if (v.error && !v.loading) {
      v.error = "";
      v.loading = true;
      void load(id, v);
    }
    return;
  }
  const view: ChildView = { transcript: new Transcript(), loading: true, error: "", watchers: 1, held: [] };
  children.set(id, view);
  changed();
  void load(id, view);
}

export function unwatchChild(id: string): void {
  const v = children.get(id);
  if (v && --v.watchers <= 0) children.delete(id);
}

async function load(id: string, view: ChildView): Promise<void> {
  try {
    const d = await api<ThreadDetail>("GET", `/thread/${enc(id)}`);
    if (children.get(id) !== view) return;
    app.threads.set(id, d.thread);
    const t = new Transcript();
    t.load(d.items, d.thread, d.turns, d.approvals);
    t.pending(d.questions);
    view.transcript = t;
  } catch (e) {
    view.error = `Could not load the sub-agent's transcript: ${(e as Error).message}`;
  } finally {
    view.loading = false;
    for (const e of view.held.splice(0)) view.transcript.apply(e);
    changed();
  }
}

/** One event from the stream: applied to the watched child it belongs to, if any. */
export function childEvent(e: Event): void {
  if (!("thread_id" in e) || !e.thread_id) return;
  const v = children.get(e.thread_id);
  if (!v) return;
  if (v.loading) v.held.push(e);
  else v.transcript.apply(e);
}

/** Learns a new thread's parent and agent fields (the list nests children under parents). */
export async function threadStarted(id: string): Promise<void> {
  try {
    const d = await api<ThreadDetail>("GET", `/thread/${enc(id)}`);
    const t = app.threads.get(id);
    if (t) app.threads.set(id, { ...t, parent_id: d.thread.parent_id, agent: d.thread.agent ?? null });
    changed();
  } catch {
    /* the next refetch (a gap, a reconnect) lists it with its parent */
  }
}
