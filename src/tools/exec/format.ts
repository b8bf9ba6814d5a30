/**
 * The model-visible text of one `exec_command` / `write_stdin` result (requirements T1; golden, see
 * seed 002). Lines joined with "\n":
 *
 *   Chunk ID: <id>
 *   Wall time: <seconds, 4 decimals> seconds
 *   Process exited with code <n>   |   Process running with session ID <n>
 *   | Process interrupted by the user (killed; exit code <n>)   (the turn was interrupted; or
 *     "by Tandem shutting down", "by <hand-over reason>")
 *   | Process exited with code <n>; then the turn was interrupted (the user)
 *   Original token count: <n>      (only when the output was truncated)
 *   Output:                        (followed by "\n<output>" when the output is non-empty)
 *
 * Output processing order matters: mask secrets → strip trailing newlines → truncate, so a
 * secret is never half-kept by a cut and the token counts describe what the model could see.
 */
import { truncateMiddle } from "../../util/truncate.js";
import type { Taken } from "./buffer.js";

export interface ChunkReport {
  chunkId: string;
  wallMs: number;
  /** Exit code when the process finished; null while it runs (then `sessionId` is set). */
  exitCode: number | null;
  sessionId?: number;
  /**
   * The turn was interrupted: the process was killed (or had just exited). `by`: who stopped it
   * ("the user", or why Tandem did: "Tandem shut down", a hand-over).
   */
  interrupted?: { exitedBefore: boolean; by: string };
  raw: Taken;
  maxTokens: number;
  mask(text: string): string;
}

export interface Rendered {
  /** The full text for the model. */
  text: string;
  /** The (masked, truncated) output part alone, for display. */
  output: string;
}

export function renderChunk(r: ChunkReport): Rendered {
  const cleaned = r.mask(r.raw.text).replace(/[\r\n]+$/, "");
  const out = truncateMiddle(cleaned, r.maxTokens, { omittedBytes: r.raw.omittedBytes });
  const lines = [`Chunk ID: ${r.chunkId}`, `Wall time: ${(r.wallMs / 1000).toFixed(4)} seconds`];
  if (r.interrupted)
    lines.push(
      r.interrupted.exitedBefore
        ? `Process exited with code ${r.exitCode}; then the turn was interrupted (${r.interrupted.by})`
        : `Process interrupted by ${r.interrupted.by} (killed${r.exitCode !== null ? `; exit code ${r.exitCode}` : ""})`,
    );
  else if (r.exitCode !== null) lines.push(`Process exited with code ${r.exitCode}`);
  else lines.push(`Process running with session ID ${r.sessionId}`);
  if (out.truncated) lines.push(`Original token count: ${out.originalTokens}`);
  lines.push(out.text.length > 0 ? `Output:\n${out.text}` : "Output:");
  return { text: lines.join("\n"), output: out.text };
}
