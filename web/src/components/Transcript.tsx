/**
 * The selected thread's transcript: one list item per entry (lib/transcript.ts), memoised by
 * entry identity so a streamed delta re-renders only its own cell. Sticks to the bottom while
 * the reader is there, and leaves the scroll alone when they scrolled up to read.
 */
import { memo, useLayoutEffect, useRef, useState } from "react";
import { findingPlace } from "../../../src/protocol/review.js";
import { printable } from "../../../src/util/printable.js";
import type { Entry } from "../lib/transcript.js";
import { app } from "../state.js";
import { DiffView, ExitBadge, Images, PlanView, TermOutput } from "./Cells.js";
import { Markdown } from "./Markdown.js";
import { MessageMenu } from "./MessageMenu.js";
import { SubAgent } from "./SubAgent.js";

export const Cell = memo(function Cell({ e }: { e: Entry }) {
  switch (e.kind) {
    case "user":
      return (
        <li className="entry user" data-id={e.id}>
          <div className="who">
            {e.queued ? "you (queued)" : "you"}
            {e.turn && <MessageMenu turn={e.turn} text={e.text} />}
          </div>
          <div className="bubble">{printable(e.text)}</div>
          <Images urls={e.images} />
        </li>
      );
    case "agent":
      return (
        <li className="entry agent" data-id={e.id}>
          <Markdown text={e.text} />
        </li>
      );
    case "reasoning":
      return (
        <li className="entry reasoning" data-id={e.id}>
          <details>
            <summary>Thinking</summary>
            <div className="thinking">{printable(e.text)}</div>
          </details>
        </li>
      );
    case "command":
      return (
        <li className="entry command" data-id={e.id} data-status={e.status}>
          <div className="cell-head">
            <code className="cmd">$ {printable(e.command)}</code>
            <ExitBadge status={e.status} exit={e.exit} />
          </div>
          {e.output !== "" && <TermOutput text={e.output} />}
        </li>
      );
    case "tool":
      return (
        <li className="entry tool" data-id={e.id}>
          <details>
            <summary>
              <span className="tool-name">{printable(e.tool)}</span>
              <span className="status" data-s={e.status}>
                {e.status === "in_progress" ? "running…" : e.status}
              </span>
            </summary>
            <pre className="args">
              {printable(e.args.length > 2000 ? `${e.args.slice(0, 2000)}…` : e.args)}
            </pre>
            {e.output !== undefined && <pre className="out">{printable(e.output)}</pre>}
          </details>
          <Images urls={e.images} />
        </li>
      );
    case "question":
      return (
        <li className="entry question" data-id={e.id}>
          <div className="who">question</div>
          <div>{printable(e.asked)}</div>
          {e.result && <div className="muted">{printable(e.result)}</div>}
        </li>
      );
    case "approval": {
      const [subject, ...reason] = e.prompt.split("\n");
      return (
        <li className={`entry approval${e.accepted ? "" : " declined"}`} data-id={e.id}>
          <div className="who">approval</div>
          <div>{printable(subject)}</div>
          {reason.length > 0 && <div className="muted">{printable(reason.join("\n"))}</div>}
          <div className="decision">→ {printable(e.decision)}</div>
        </li>
      );
    }
    case "patch":
      return (
        <li className={`entry patch${e.status === "failed" ? " failed" : ""}`} data-id={e.id}>
          <div className="cell-head">
            <span className="who">apply_patch</span>
            <span className="status" data-s={e.status}>
              {e.status === "in_progress" ? "applying…" : e.status}
            </span>
          </div>
          {e.error && <p className="error-text">{printable(e.error)}</p>}
          <DiffView files={e.files} />
        </li>
      );
    case "plan":
      return (
        <li className="entry plan-entry" data-id={e.id}>
          <PlanView explanation={e.explanation} steps={e.steps} />
        </li>
      );
    case "diff":
      return (
        <li className="entry turn-diff" data-id={e.id}>
          <div className="who">Changes in this turn</div>
          <DiffView files={e.files} />
        </li>
      );
    case "turn":
      return e.status === "started" ? (
        <li className="entry turn" data-id={e.id}>
          {e.text}
        </li>
      ) : (
        <li className={`entry turn end${e.status === "failed" ? " failed" : ""}`} data-id={e.id}>
          <span className="status" data-s={e.status}>
            {e.status}
          </span>
          {e.error ? ` ${printable(e.error)}` : ""}
          {e.status === "failed" && !e.error ? ` ${e.text}` : ""}
        </li>
      );
    case "error":
      return (
        <li className="entry error" data-id={e.id} role="alert">
          {printable(e.text)}
        </li>
      );
    case "warning":
      return (
        <li className="entry warning" data-id={e.id} role="status">
          {printable(e.text)}
        </li>
      );
    case "subagent":
      return <SubAgent e={e} Cell={Cell} />;
    case "review":
      return (
        <li className="entry review" data-id={e.id}>
          <div className="cell-head">
            <span className="who">review</span>
            <span>
              {e.result
                ? e.result.findings.length
                  ? `${e.result.findings.length} finding${e.result.findings.length === 1 ? "" : "s"}`
                  : "no findings"
                : "the answer could not be read"}
            </span>
          </div>
          {e.result ? (
            <>
              <ol className="findings">
                {e.result.findings.map((f, i) => (
                  // biome-ignore lint/suspicious/noArrayIndexKey: findings have no id
                  <li key={i} data-priority={f.priority}>
                    <span className="priority">P{f.priority}</span> <strong>{printable(f.title)}</strong>{" "}
                    {f.file && (
                      <code className="place">
                        {printable(findingPlace(f, app.threads.get(app.current ?? "")?.cwd))}
                      </code>
                    )}
                    <Markdown text={f.body} />
                  </li>
                ))}
              </ol>
              {(e.result.overall_correctness || e.result.overall_explanation) && (
                <p className="muted">
                  {printable(
                    [e.result.overall_correctness, e.result.overall_explanation].filter(Boolean).join(" — "),
                  )}
                </p>
              )}
            </>
          ) : (
            <pre className="out">{printable(e.raw)}</pre>
          )}
        </li>
      );
    case "waited":
      return (
        <li className="entry waited" data-id={e.id}>
          <div className="cell-head">
            <span className="who">sub-agents</span>
            <span>{e.timedOut ? "waited (timed out; some still work)" : "finished"}</span>
          </div>
          <ul className="waited-agents">
            {e.agents.map((a) => (
              <li key={a.id} data-agent={a.id}>
                <span className="agent-name">{printable(a.name)}</span>
                {a.role && <span className="agent-role">{printable(a.role)}</span>}
                <span className="status" data-s={a.status}>
                  {a.status.replace(/_/g, " ")}
                </span>
                {a.error && <p className="error-text">{printable(a.error)}</p>}
                {a.message && <Markdown text={a.message} />}
              </li>
            ))}
          </ul>
        </li>
      );
  }
});

/**
 * How many of the last entries a thread opens with (more than a tall screen holds: each one's
 * Markdown is parsed and sanitised before the first paint, ~1 ms apiece), and how many more each
 * step up shows.
 */
const FIRST = 50;
const WINDOW = 150;

/**
 * The transcript, windowed: a long thread opens with its last FIRST entries drawn (a first
 * paint that does not grow with the thread); scrolling to the top, or "Show earlier", draws
 * WINDOW more above, keeping what is on screen in place. Live entries always draw.
 */
export function Transcript({ entries, version }: { entries: Entry[]; version: number }) {
  const ref = useRef<HTMLOListElement>(null);
  const atBottom = useRef(true);
  const [shown, setShown] = useState(FIRST);
  // A new thread (a new entries array: one per thread, mutated in place) opens windowed again.
  const [owner, setOwner] = useState(entries);
  if (owner !== entries) {
    setOwner(entries);
    setShown(FIRST);
  }
  /** Distance from the bottom before drawing more above: kept so the view does not jump. */
  const anchor = useRef<number | null>(null);
  const hidden = Math.max(0, entries.length - shown);
  const earlier = () => {
    const el = ref.current;
    if (el) anchor.current = el.scrollHeight - el.scrollTop;
    setShown((n) => n + WINDOW);
  };
  // biome-ignore lint/correctness/useExhaustiveDependencies: runs after every transcript change
  useLayoutEffect(() => {
    const el = ref.current;
    if (!el) return;
    if (anchor.current !== null) {
      el.scrollTop = el.scrollHeight - anchor.current;
      anchor.current = null;
    } else if (atBottom.current) el.scrollTop = el.scrollHeight;
  }, [version, shown]);
  return (
    <ol
      id="transcript"
      className="transcript"
      ref={ref}
      aria-label="Transcript"
      // biome-ignore lint/a11y/noNoninteractiveTabindex: a scrollable region must be reachable by keyboard (axe scrollable-region-focusable)
      tabIndex={0}
      onScroll={(ev) => {
        const t = ev.currentTarget;
        atBottom.current = t.scrollHeight - t.scrollTop - t.clientHeight < 80;
        if (hidden > 0 && t.scrollTop < 200 && anchor.current === null) earlier();
      }}
    >
      {hidden > 0 && (
        <li className="entry earlier">
          <button id="show-earlier" type="button" className="small secondary" onClick={earlier}>
            Show earlier ({hidden.toLocaleString()} more)
          </button>
        </li>
      )}
      {(hidden > 0 ? entries.slice(hidden) : entries).map((e) => (
        <Cell key={e.id} e={e} />
      ))}
    </ol>
  );
}
