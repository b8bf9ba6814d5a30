/**
 * Secret masking for command output that arrives in pieces (requirements Q10, README "Sandbox and approvals").
 *
 * Output reaches readers two ways, and each cuts the byte stream where it likes: live deltas
 * (`ctx.onUpdate`, fed to every surface: app-server `outputDelta`, SSE and its replay buffer,
 * the TUI) and the reports of `exec_command` / `write_stdin` (the model, history, the store). A
 * secret cut in two by either would pass a whole-value mask in two harmless-looking halves.
 *
 * Contract:
 * - Both paths keep per-process state (a WeakMap on the process, so it lives exactly as long as
 *   the process and survives from one `write_stdin` to the next). A piece is shown only up to
 *   `secrets.safeCut`: no known value crosses the cut and what follows it is not the start of a
 *   value that may continue; that tail is held and shown with the next piece.
 * - Live deltas also wait for whole lines (a partial line longer than MAX_HELD_CHARS is
 *   streamed anyway, up to the safe cut). At the end of a yield, held text is flushed up to the
 *   safe cut while the process runs, and entirely once it has finished.
 * - A report of a finished process shows everything; a running one keeps a possible secret
 *   start for its next report. Text shown is always masked by the caller / `emit`.
 * - With a secret view that has no `safeCut` (test fakes) nothing is held beyond line waiting.
 */
import type { SecretView, ToolContext } from "../types.js";
import type { Taken } from "./buffer.js";
import type { ExecProcess, OutputListener, OutputStream } from "./process.js";

/** Partial lines longer than this are streamed without waiting for their newline. */
export const MAX_HELD_CHARS = 4096;

interface Held {
  /** Raw (unmasked) text not yet streamed live, per stream. */
  live: Record<OutputStream, string>;
  /** Raw text taken from the buffer but not yet reported. */
  report: string;
}

const heldByProc = new WeakMap<ExecProcess, Held>();

function heldFor(proc: ExecProcess): Held {
  let h = heldByProc.get(proc);
  if (!h) {
    h = { live: { stdout: "", stderr: "" }, report: "" };
    heldByProc.set(proc, h);
  }
  return h;
}

const cutAt = (secrets: SecretView, text: string, at = text.length) =>
  secrets.safeCut ? secrets.safeCut(text, at) : at;

/**
 * A listener that streams masked output of `proc` to `ctx.onUpdate`, whole lines at a time and
 * never part of a secret; `flush()` (end of a yield) sends what may be sent.
 */
export function maskedStream(
  ctx: ToolContext,
  proc: ExecProcess,
): { listener: OutputListener; flush(): void } {
  const held = heldFor(proc).live;
  const emit = (stream: OutputStream, text: string) => {
    const masked = text.length > 0 ? ctx.secrets.mask(text) : "";
    if (masked.length > 0) ctx.onUpdate({ stream, chunk: masked });
  };
  const send = (stream: OutputStream, text: string, upTo: number) => {
    const cut = cutAt(ctx.secrets, text, upTo);
    held[stream] = text.slice(cut);
    emit(stream, text.slice(0, cut));
  };
  return {
    listener(stream, chunk) {
      const text = held[stream] + chunk;
      const lineEnd = text.lastIndexOf("\n") + 1;
      send(stream, text, text.length - lineEnd > MAX_HELD_CHARS ? text.length : lineEnd);
    },
    flush() {
      for (const stream of ["stdout", "stderr"] as const) {
        const text = held[stream];
        if (proc.finished) {
          held[stream] = "";
          emit(stream, text);
        } else send(stream, text, text.length);
      }
    },
  };
}

/**
 * The output collected since the last report, unmasked, cut so that masking it cannot show part
 * of a secret (a running process keeps a possible secret start for its next report).
 */
export function takeOutput(proc: ExecProcess, secrets: SecretView): Taken {
  const h = heldFor(proc);
  const taken = proc.output.take();
  const text = h.report + taken.text;
  const cut = proc.finished ? text.length : cutAt(secrets, text);
  h.report = text.slice(cut);
  return { text: text.slice(0, cut), omittedBytes: taken.omittedBytes };
}
