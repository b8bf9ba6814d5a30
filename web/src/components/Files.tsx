/**
 * The thread's files changed (loaded on demand: it is not part of the first load): every file
 * its turns changed, each with its net change across the thread (lib/net-diff.ts), drawn like a
 * turn's diff. Where the turns' diffs do not line up (the file changed between turns), each
 * turn's change is shown instead, and it says so.
 */
import { useMemo } from "react";
import { printable } from "../../../src/util/printable.js";
import type { DiffFile } from "../lib/diff.js";
import { netDiff } from "../lib/net-diff.js";
import { app, changed, useApp } from "../state.js";
import { DiffView } from "./Cells.js";

/** Each ended turn's diff in the selected thread's transcript, oldest first. */
export function turnDiffs(): DiffFile[][] {
  const out: DiffFile[][] = [];
  for (const e of app.transcript.entries)
    if (e.kind === "diff" && e.id.startsWith("diff_")) out.push(e.files);
  return out;
}

export default function Files() {
  useApp();
  const version = app.transcript.version;
  // biome-ignore lint/correctness/useExhaustiveDependencies: the transcript's version says when its diffs changed
  const files = useMemo(() => netDiff(turnDiffs()), [version, app.transcript]);
  return (
    <section id="files-view" className="files-view" aria-labelledby="files-h">
      <div className="row">
        <h3 id="files-h">Files changed in this thread · {files.length}</h3>
        <span className="grow" />
        <button
          id="files-close"
          type="button"
          className="small secondary"
          onClick={() => {
            app.files = false;
            changed();
          }}
        >
          Close
        </button>
      </div>
      {files.length === 0 && <p className="empty">No turn of this thread changed a file.</p>}
      <ul className="net-files">
        {files.map((f) => (
          <li key={f.path} data-path={f.path} data-exact={f.exact ? "1" : "0"}>
            <p className="muted">
              {f.turns} turn{f.turns === 1 ? "" : "s"}
              {f.exact
                ? f.file.lines.length
                  ? " · net change"
                  : " · no net change"
                : ` · ${printable(f.path)} also changed between turns: each turn's change is shown`}
            </p>
            <DiffView files={[f.file]} />
          </li>
        ))}
      </ul>
    </section>
  );
}
