/**
 * The side panel: the inbox of pending questions across threads (approvals first, Q16) with
 * their countdowns, and the thread list with status badges (a failed turn reads "failed"); a
 * sub-agent's thread nests under its parent, named by its nickname and role. A search box
 * above the list searches every thread's title and content (Search.tsx).
 * On a desktop it is the left pane; on a phone it is a drawer over the transcript.
 */
import { useState } from "react";
import type { ThreadSummary } from "../../../src/protocol/http.js";
import { printable } from "../../../src/util/printable.js";
import {
  app,
  basename,
  changed,
  openQuestion,
  queue,
  selectThread,
  serverNow,
  shortId,
  threadName,
  waitingIn,
} from "../state.js";
import { Search } from "./Search.js";

const STATUS_TEXT: Record<string, string> = {
  idle: "idle",
  running: "running",
  waiting_on_user: "waiting",
  failed: "failed",
  closed: "closed",
};
export function statusText(t: ThreadSummary): string {
  const n = waitingIn(t.id);
  if (n) return `${n} waiting`;
  return STATUS_TEXT[t.status] ?? t.status;
}
const left = (deadline: number | null) => {
  if (deadline === null) return "";
  const s = Math.max(0, Math.ceil((deadline - serverNow()) / 1000));
  return `${Math.floor(s / 60)}:${String(s % 60).padStart(2, "0")}`;
};

export function Inbox() {
  const list = queue();
  return (
    <section className="panel inbox" aria-labelledby="inbox-h">
      <h2 id="inbox-h">
        Questions{" "}
        <span id="inbox-count" className="count" data-n={list.length}>
          {list.length}
        </span>
      </h2>
      <ul id="inbox" className="list">
        {list.map((r) => (
          <li key={r.request_id} data-id={r.request_id}>
            <button type="button" className="item" onClick={() => openQuestion(r.request_id)}>
              <span className="title">
                <span className="ellipsis">
                  {r.approval ? "Approval" : printable(r.questions.map((q) => q.header || q.id).join(" · "))}
                </span>
                <span className="countdown left">{left(r.deadline)}</span>
              </span>
              <span className="sub">{printable(r.questions[0].prompt)}</span>
              <span className="sub">
                {r.agent ? `Sub-agent ${printable(r.agent.nickname)} · ` : ""}
                {printable(threadName(r.agent?.root_thread_id ?? r.thread_id))} · {shortId(r.thread_id)}
              </span>
            </button>
          </li>
        ))}
      </ul>
      {list.length === 0 && (
        <p id="inbox-empty" className="empty">
          No questions waiting.
        </p>
      )}
    </section>
  );
}

/** One thread row; its sub-agents (children in the store) nest below it, recursively. */
function ThreadRow({ t, kids }: { t: ThreadSummary; kids: Map<string, ThreadSummary[]> }) {
  const mine = kids.get(t.id) ?? [];
  const agent = t.agent;
  return (
    <li
      data-id={t.id}
      data-parent={t.parent_id ?? undefined}
      aria-current={t.id === app.current ? "true" : undefined}
    >
      <button type="button" className="item" onClick={() => selectThread(t.id)}>
        <span className="title">
          <span className="ellipsis" title={agent ? agent.task : t.title || t.cwd}>
            {agent
              ? `${printable(agent.nickname)}${agent.role !== "default" ? ` (${printable(agent.role)})` : ""}`
              : printable(t.title || basename(t.cwd))}
          </span>
          <span className="status" data-s={t.status}>
            {statusText(t)}
          </span>
        </span>
        <span className="sub">
          {agent ? `sub-agent · ${printable(agent.task)}` : `${shortId(t.id)} · ${t.model} · ${t.mode} mode`}
          {mine.length > 0 && ` · ${mine.length} sub-agent${mine.length === 1 ? "" : "s"}`}
        </span>
      </button>
      {mine.length > 0 && (
        <ul className="list children" aria-label={`Sub-agents of ${t.title || basename(t.cwd)}`}>
          {mine.map((k) => (
            <ThreadRow key={k.id} t={k} kids={kids} />
          ))}
        </ul>
      )}
    </li>
  );
}

export function Threads() {
  const [query, setQuery] = useState("");
  const all = [...app.threads.values()];
  // Children go under their parent (oldest first, in spawn order); the rest are top level,
  // newest first. A child whose parent is not listed stays at the top level.
  const kids = new Map<string, ThreadSummary[]>();
  for (const t of all)
    if (t.parent_id && app.threads.has(t.parent_id)) {
      const list = kids.get(t.parent_id) ?? [];
      list.push(t);
      kids.set(t.parent_id, list);
    }
  for (const list of kids.values()) list.sort((a, b) => a.created_at - b.created_at);
  const list = all
    .filter((t) => !(t.parent_id && app.threads.has(t.parent_id)))
    .sort((a, b) => b.created_at - a.created_at);
  return (
    <section className="panel threads" aria-labelledby="threads-h">
      <h2 id="threads-h">
        Threads
        <button
          id="new-thread"
          type="button"
          className="small secondary"
          onClick={() => {
            selectThread(null);
            app.newThread = true;
            changed();
          }}
        >
          New
        </button>
      </h2>
      <Search query={query} setQuery={setQuery} />
      <ul id="threads" className="list" hidden={query.trim() !== ""}>
        {list.map((t) => (
          <ThreadRow key={t.id} t={t} kids={kids} />
        ))}
      </ul>
      {list.length === 0 && !query.trim() && (
        <p id="threads-empty" className="empty">
          No threads yet. Write a message to start one.
        </p>
      )}
    </section>
  );
}
