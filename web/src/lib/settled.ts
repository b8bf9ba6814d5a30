/**
 * Entries for what a turn settled, drawn the same live and on reload (lib/transcript.ts): an
 * approval with its decision, and a stored patch with the hunks its turn's net diff holds.
 */
import { sectionFor } from "../../../src/protocol/patch-history.js";
import type { QuestionOutcome, QuestionRequest } from "../../../src/protocol/questions.js";
import { type DiffFile, parseCodexPatch, parseUnifiedDiff } from "./diff.js";
import type { Entry } from "./transcript.js";

/** The entry of a settled approval (keyed by its request id, as live and on reload). */
export function approvalEntry(request: QuestionRequest, outcome: QuestionOutcome): Entry {
  const who = (r: { kind: string }) => ` · via ${r.kind}`;
  let decision: string;
  let accepted = false;
  switch (outcome.status) {
    case "answered": {
      decision = outcome.answers.decision?.selected[0] ?? "(no choice)";
      accepted = /^Accept/i.test(decision);
      decision += who(outcome.responder);
      break;
    }
    case "declined":
      decision = `Declined${who(outcome.responder)}${outcome.reason ? `: ${outcome.reason}` : ""}`;
      break;
    case "timed_out":
      decision = "Timed out (declined)";
      break;
    case "cancelled":
      decision = `Cancelled (${outcome.reason})`;
      break;
    default:
      decision = `Not answered (${outcome.reason})`;
  }
  return {
    kind: "approval",
    id: request.request_id,
    prompt: request.questions[0]?.prompt ?? "",
    decision,
    accepted,
  };
}

/** A stored patch's files, each drawn from its turn's net diff where it has a section. */
export function storedPatchFiles(patch: string, sections: Map<string, string> | undefined): DiffFile[] {
  const proposed = parseCodexPatch(patch);
  if (!sections?.size) return proposed;
  return proposed.map((f) => {
    const section = sectionFor(sections, f.move_path ?? f.path) ?? sectionFor(sections, f.path);
    const parsed = section ? parseUnifiedDiff(section) : [];
    return parsed.length ? { ...f, lines: parsed.flatMap((p) => p.lines) } : f;
  });
}
