/**
 * A user message's menu (README "Undo, redo, fork and rewind"): fork the thread from this
 * message, or rewind the conversation to before it — with or without restoring the files the
 * later turns changed (the server asks for each undo). Offered on the messages that started a
 * stored turn, while no turn runs.
 */
import { app, forkThread, rewindThread, useApp } from "../state.js";

const ACTIONS = [
  {
    action: "fork",
    label: "Fork from here",
    title: "A new thread with the conversation through this message's turn",
  },
  {
    action: "rewind",
    label: "Rewind to before this",
    title: "Cut the conversation back to before this message (kept as an archived thread); files stay",
  },
  {
    action: "rewind-code",
    label: "Rewind and restore files",
    title: "Rewind, and undo the file changes of this and the later turns (asks first)",
  },
] as const;

export function MessageMenu({ turn, text }: { turn: string; text: string }) {
  // The row around it is memoised by entry: this follows the thread's running state itself.
  useApp();
  const id = app.current;
  const t = id ? app.threads.get(id) : undefined;
  if (!id || !t || t.active_turn_id) return null;
  const run = (action: (typeof ACTIONS)[number]["action"]) => {
    if (action === "fork") void forkThread(id, turn);
    else rewindThread(id, { id: turn, text }, action === "rewind-code");
  };
  return (
    <details className="msg-menu">
      <summary aria-label="Message actions" title="Fork or rewind from this message">
        ⋯
      </summary>
      <div className="msg-menu-items">
        {ACTIONS.map((a) => (
          <button
            key={a.action}
            type="button"
            className="small secondary"
            data-action={a.action}
            title={a.title}
            onClick={(ev) => {
              ev.currentTarget.closest("details")?.removeAttribute("open");
              run(a.action);
            }}
          >
            {a.label}
          </button>
        ))}
      </div>
    </details>
  );
}
