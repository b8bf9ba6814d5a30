/**
 * Sub-agents in the TUI (README "Sub-agents"): the `/agents` picker and the switch of the transcript
 * to a sub-agent's thread and back. No React here (app.tsx reads `current()`).
 *
 * Contract:
 * - `openPicker()` lists the sub-agents of the shown root thread (every depth, from the store and
 *   the open threads): nickname, role, depth, status and the task's first line; while a child is
 *   viewed, a "main thread" entry comes first. The open picker is rebuilt from the bus's events
 *   (a child started, its status or turn changed, a question asked or settled) keeping its place.
 * - `view(id)` shows a child: a fresh `ViewStore` seeded with a banner and the child's stored
 *   history, then fed the child's live events (`handle`). The root's store keeps folding the
 *   root's events meanwhile, so nothing is lost; `back()` returns to it, and the root's scrollback
 *   continues where it stopped (`rootCursor`), after a "back to the main thread" divider.
 * - Questions (the child's too, Q14) stay on the root's store: the overlay is the root's.
 *   The composer keeps sending to the root thread (no steering of children).
 * - `current()` changes identity only on a switch (fit for `useSyncExternalStore`).
 */
import type { Event } from "../../protocol/events.js";
import type { AgentSettings, ThreadRecord } from "../../protocol/threads.js";
import type { Runtime } from "../../runtime/core.js";
import { cellsFromHistory, patchDiffsOf } from "./cells.js";
import type { MenuHost, PickerItem, PickerRequest } from "./picker.js";
import { ViewStore } from "./view-store.js";

export const AGENTS_TITLE = "Sub-agents of this thread";
const MAIN = "\u0000main";

export interface AgentRow {
  id: string;
  nickname: string;
  role: string;
  depth: number;
  status: string;
  task: string;
}

export interface Viewing {
  id: string;
  nickname: string;
  store: ViewStore;
}

/** How many root cells the scrollback wrote (kept across its remounts). */
export interface ScrollCursor {
  written: number;
}

/** The first non-empty line of a task, at most `max` characters. */
export function firstLine(text: string, max = 60): string {
  const line = text.split("\n").find((l) => l.trim()) ?? "";
  return line.length > max ? `${line.slice(0, max - 1)}…` : line.trim();
}

export class AgentView {
  private viewing: Viewing | null = null;
  private listeners = new Set<() => void>();
  private request: PickerRequest | null = null;
  readonly rootCursor: ScrollCursor = { written: 0 };

  constructor(
    private readonly runtime: Runtime,
    private readonly root: ViewStore,
    private readonly menus: MenuHost,
    private readonly opts: { frameMs?: number } = {},
  ) {}

  current = (): Viewing | null => this.viewing;

  subscribe = (fn: () => void): (() => void) => {
    this.listeners.add(fn);
    return () => {
      this.listeners.delete(fn);
    };
  };

  /** The root thread of the shown thread (itself unless a sub-agent thread was resumed). */
  private rootId(): string {
    const id = this.root.threadId;
    return this.runtime.agents.info(id)?.root_thread_id ?? id;
  }

  /** The sub-agents under the shown root: each after its parent, siblings oldest first. */
  rows(): AgentRow[] {
    const rootId = this.rootId();
    if (!rootId) return [];
    const kids = new Map<string, ThreadRecord[]>();
    for (const r of this.runtime.threads.list()) {
      if (r.settings.agent?.root_id !== rootId || !r.parent_id) continue;
      kids.set(r.parent_id, [...(kids.get(r.parent_id) ?? []), r]);
    }
    const out: AgentRow[] = [];
    const walk = (id: string) => {
      const children = (kids.get(id) ?? []).sort((x, y) => x.created_at - y.created_at);
      for (const r of children) {
        if (r.settings.agent) out.push(this.row(r, r.settings.agent));
        if (out.length < 1000) walk(r.id);
      }
    };
    walk(rootId);
    return out;
  }

  private row(r: ThreadRecord, a: AgentSettings): AgentRow {
    const status = this.runtime.agents.status(r.id) ?? r.status;
    return {
      id: r.id,
      nickname: a.nickname,
      role: a.role,
      depth: a.depth,
      status: status.replace(/_/g, " "),
      task: firstLine(a.task),
    };
  }

  private items(): PickerItem[] {
    const rows = this.rows().map(
      (r): PickerItem => ({
        label: `${"  ".repeat(r.depth - 1)}${r.nickname}`,
        detail: `${r.role} · depth ${r.depth} · ${r.status} · ${r.task}`,
        value: r.id,
        current: this.viewing?.id === r.id,
      }),
    );
    if (!this.viewing) return rows;
    return [{ label: "main thread", detail: "back to the conversation", value: MAIN }, ...rows];
  }

  /** `/agents` (and its key): the picker, or a notice when there are none. */
  openPicker(): void {
    const items = this.items();
    if (!items.length) {
      this.root.notice("no sub-agents in this thread yet", "dim");
      return;
    }
    const request: PickerRequest = {
      title: AGENTS_TITLE,
      items,
      onPick: (id) => {
        this.request = null;
        if (id === MAIN) this.back();
        else if (id !== this.viewing?.id) this.view(id);
      },
      onCancel: () => {
        this.request = null;
      },
    };
    this.request = request;
    this.menus.open(request);
  }

  /** Feeds the bus: the viewed child's events, and a refresh of the open picker. */
  handle(e: Event): void {
    if (this.viewing) this.viewing.store.handle(e);
    if (!this.request || this.menus.current() !== this.request || !("thread_id" in e)) return;
    if (
      e.type === "thread.started" ||
      e.type === "thread.status_changed" ||
      e.type === "turn.started" ||
      e.type === "turn.completed" ||
      e.type.startsWith("question.")
    ) {
      if (e.thread_id && this.runtime.agents.info(e.thread_id)) {
        this.request = { ...this.request, items: this.items() };
        this.menus.open(this.request);
      }
    }
  }

  /** Shows a sub-agent's transcript (its stored items, then its live events). */
  view(id: string): void {
    const record = this.runtime.threads.record(id);
    const a = record?.settings.agent;
    if (!record || !a) {
      this.root.notice(`no sub-agent ${id}`, "error");
      return;
    }
    if (!this.viewing)
      this.root.notice(`── back to the main thread (you viewed sub-agent ${a.nickname}) ──`, "dim");
    this.viewing?.store.dispose();
    const open = this.runtime.threads.get(id);
    const store = new ViewStore(
      { id, model: record.model, mode: record.mode, cwd: record.cwd },
      { frameMs: this.opts.frameMs },
    );
    store.setThread(
      { id, model: record.model, mode: record.mode, cwd: record.cwd },
      open?.status ?? record.status,
    );
    const items = open ? open.items() : this.runtime.threads.history(id).map((s) => s.item);
    store.add({
      kind: "banner",
      title: `Sub-agent ${a.nickname}`,
      lines: [`role ${a.role} · depth ${a.depth} · thread ${id}`, `task: ${firstLine(a.task, 200)}`],
    });
    store.addCells(
      cellsFromHistory(
        items,
        (callId) => this.runtime.questions.ofCall(id, callId),
        patchDiffsOf(this.runtime.threads.history(id), this.runtime.threads.turns(id)),
      ),
    );
    // The first frame of the view must already show the child's state (working, waiting…),
    // not the fresh store's idle: build the snapshot now rather than on the next frame tick.
    store.flushNow();
    this.viewing = { id, nickname: a.nickname, store };
    this.emit();
  }

  /** Back to the root thread's transcript. */
  back(): boolean {
    if (!this.viewing) return false;
    this.viewing.store.dispose();
    this.viewing = null;
    this.emit();
    return true;
  }

  dispose(): void {
    this.viewing?.store.dispose();
    this.viewing = null;
    this.listeners.clear();
  }

  private emit(): void {
    for (const l of [...this.listeners]) l();
  }
}
