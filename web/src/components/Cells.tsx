/**
 * Transcript cells that are not prose: a coloured diff per file, a command with its live
 * output (ANSI colours, long output folded to its tail, exit status), a plan checklist, images.
 * All text goes in as React text (escaped), control characters shown as symbols.
 */
import { memo, useState } from "react";
import { printable } from "../../../src/util/printable.js";
import { parseAnsi } from "../lib/ansi.js";
import { type DiffFile, diffStat } from "../lib/diff.js";
import type { PlanStep } from "../lib/transcript.js";

const KIND_LABEL = { add: "added", update: "modified", delete: "deleted", move: "moved" } as const;
const SIGN = { add: "+", del: "-", ctx: " ", hunk: "", meta: "" } as const;

export const DiffView = memo(function DiffView({ files }: { files: DiffFile[] }) {
  return (
    <div className="diff">
      {files.map((f, i) => {
        const s = diffStat([f]);
        return (
          // biome-ignore lint/suspicious/noArrayIndexKey: a path may repeat (two changes to one file)
          <details className="diff-file" key={`${f.path}-${i}`} open={files.length <= 6}>
            <summary>
              <span className="diff-kind" data-kind={f.kind}>
                {KIND_LABEL[f.kind]}
              </span>
              <span className="diff-path">
                {printable(f.path)}
                {f.move_path ? ` → ${printable(f.move_path)}` : ""}
              </span>
              <span className="diff-stat">
                <span className="plus">+{s.added}</span> <span className="minus">-{s.removed}</span>
              </span>
            </summary>
            <pre className="diff-body">
              {f.lines.map((l, k) => (
                // biome-ignore lint/suspicious/noArrayIndexKey: lines have no identity but their place
                <span key={k} className={`dl ${l.t}`}>
                  {SIGN[l.t]}
                  {printable(l.text)}
                  {"\n"}
                </span>
              ))}
            </pre>
          </details>
        );
      })}
    </div>
  );
});

const FOLD_LINES = 40;

/** Terminal output with colours; more than FOLD_LINES lines shows the tail and a button. */
export const TermOutput = memo(function TermOutput({ text }: { text: string }) {
  const [all, setAll] = useState(false);
  const lines = text.split("\n");
  if (lines[lines.length - 1] === "") lines.pop();
  const hidden = all ? 0 : Math.max(0, lines.length - FOLD_LINES);
  const segments = parseAnsi(hidden ? lines.slice(hidden).join("\n") : lines.join("\n"));
  return (
    <div className="term">
      {hidden > 0 && (
        <button type="button" className="small secondary fold" onClick={() => setAll(true)}>
          Show {hidden} earlier lines
        </button>
      )}
      <pre>
        {segments.map((s, i) => {
          const cls = [
            s.fg?.startsWith("c") ? `fg-${s.fg}` : "",
            s.bg?.startsWith("c") ? `bg-${s.bg}` : "",
            s.bold ? "b" : "",
            s.dim ? "dim" : "",
            s.italic ? "i" : "",
            s.underline ? "u" : "",
          ]
            .filter(Boolean)
            .join(" ");
          const style =
            s.fg?.startsWith("rgb") || s.bg?.startsWith("rgb")
              ? {
                  ...(s.fg?.startsWith("rgb") ? { color: s.fg } : {}),
                  ...(s.bg?.startsWith("rgb") ? { backgroundColor: s.bg } : {}),
                }
              : undefined;
          return cls || style ? (
            // biome-ignore lint/suspicious/noArrayIndexKey: segments have no identity but their place
            <span key={i} className={cls || undefined} style={style}>
              {s.text}
            </span>
          ) : (
            s.text
          );
        })}
      </pre>
    </div>
  );
});

export function ExitBadge({ status, exit }: { status: string; exit: number | null }) {
  const text =
    status === "in_progress" ? "running…" : exit === null ? status : exit === 0 ? "exit 0" : `exit ${exit}`;
  const tone =
    status === "in_progress"
      ? "run"
      : exit === 0
        ? "ok"
        : exit === null && status === "completed"
          ? ""
          : "bad";
  return (
    <span className="exit" data-tone={tone}>
      {text}
    </span>
  );
}

const MARK = { completed: "✓", in_progress: "▸", pending: "○" } as const;

export const PlanView = memo(function PlanView({
  explanation,
  steps,
}: {
  explanation: string | null;
  steps: PlanStep[];
}) {
  const done = steps.filter((s) => s.status === "completed").length;
  return (
    <div className="plan">
      <div className="plan-head">
        Plan · {done} of {steps.length} done
      </div>
      {explanation && <p className="plan-why">{printable(explanation)}</p>}
      <ul className="checklist">
        {steps.map((s, i) => (
          // biome-ignore lint/suspicious/noArrayIndexKey: plan steps are positional
          <li key={i} data-status={s.status}>
            <input
              type="checkbox"
              checked={s.status === "completed"}
              disabled
              aria-label={s.status.replace("_", " ")}
            />
            <span className="mark" aria-hidden="true">
              {MARK[s.status] ?? "○"}
            </span>
            <span className="step">{printable(s.step)}</span>
          </li>
        ))}
      </ul>
    </div>
  );
});

/** Images: data: URLs inline; other addresses as links (the page loads nothing from elsewhere). */
export function Images({ urls }: { urls: string[] }) {
  if (!urls.length) return null;
  return (
    <div className="images">
      {urls.map((u, i) =>
        /^data:image\//i.test(u) ? (
          // biome-ignore lint/suspicious/noArrayIndexKey: images are positional
          <img key={i} src={u} alt={`attachment ${i + 1}`} />
        ) : (
          // biome-ignore lint/suspicious/noArrayIndexKey: images are positional
          <a key={i} href={u} target="_blank" rel="noopener noreferrer">
            image {i + 1}: {u.slice(0, 80)}
          </a>
        ),
      )}
    </div>
  );
}
