/**
 * A `spawn_agent` call in its parent's transcript (README "Sub-agents"): a collapsible block naming the
 * sub-agent (nickname, role), its live status (the thread list's, from the event stream) and the
 * task it was given. Expanding it shows the child's own transcript, loaded and then kept live by
 * agents.ts; a child that spawned children shows their blocks the same way, nested.
 */
import { type ComponentType, useEffect, useState } from "react";
import { printable } from "../../../src/util/printable.js";
import { children, unwatchChild, watchChild } from "../agents.js";
import type { SubAgentEntry } from "../lib/subagent.js";
import type { Entry } from "../lib/transcript.js";

/** How a transcript cell is drawn: Transcript.tsx passes its own (a card nests a transcript). */
export type CellView = ComponentType<{ e: Entry }>;

import { app, useApp } from "../state.js";
import { statusText } from "./Side.js";

function ChildTranscript({ id, Cell }: { id: string; Cell: CellView }) {
  useEffect(() => {
    watchChild(id);
    return () => unwatchChild(id);
  }, [id]);
  const v = children.get(id);
  if (!v || (v.loading && v.transcript.entries.length === 0))
    return <p className="muted sub-loading">Loading the sub-agent's transcript…</p>;
  if (v.error)
    return (
      <p className="error" role="alert">
        {v.error}
      </p>
    );
  return (
    <ol className="transcript nested" aria-label="Sub-agent transcript">
      {v.transcript.entries.map((e) => (
        <Cell key={e.id} e={e} />
      ))}
    </ol>
  );
}

export function SubAgent({ e, Cell }: { e: SubAgentEntry; Cell: CellView }) {
  useApp();
  const [open, setOpen] = useState(false);
  const t = e.agentId ? app.threads.get(e.agentId) : undefined;
  const status =
    e.status === "in_progress" ? "starting…" : e.status === "failed" ? "not started" : t ? statusText(t) : "";
  const name = e.nickname ?? t?.agent?.nickname ?? "sub-agent";
  return (
    <li className="entry subagent" data-id={e.id} data-agent={e.agentId ?? undefined}>
      <details open={open} onToggle={(ev) => setOpen(ev.currentTarget.open)}>
        <summary>
          <span className="who">sub-agent</span>
          <span className="agent-name">{printable(name)}</span>
          {e.role !== "default" && <span className="agent-role">{printable(e.role)}</span>}
          <span className="status" data-s={t?.status ?? e.status}>
            {status}
          </span>
          <span className="agent-task ellipsis" title={e.task}>
            {printable(e.task)}
          </span>
        </summary>
        {e.error && <p className="error-text">{printable(e.error)}</p>}
        {open && e.agentId && <ChildTranscript id={e.agentId} Cell={Cell} />}
      </details>
    </li>
  );
}
