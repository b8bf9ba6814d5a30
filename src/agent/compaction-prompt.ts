/**
 * The texts of compaction (requirements L14): the prompt that asks the model for a handoff summary, and
 * the prefix that marks the summary item in history. Both start with fixed marker lines so a
 * model server (and `tandem mock-model`) can recognise a compaction request, and so the prompt
 * builder can recognise a summary item in stored history.
 */

/** First line of every compaction request's last user message. */
export const COMPACTION_MARKER = "<tandem:context_compaction_request>";

/** First line of every summary item (a user message) that replaces compacted history. */
export const SUMMARY_MARKER = "<tandem:context_summary>";

export const COMPACTION_PROMPT = `${COMPACTION_MARKER}
You are performing a CONTEXT CHECKPOINT COMPACTION. The conversation above is about to be
replaced by a handoff summary that another instance of you will continue from, together with
the user's most recent messages. Write that summary now. Do not call tools.

Write concise, factual notes under these headings:
1. Request: what the user asked for, in their terms, including constraints and preferences.
2. Done so far: what was done (files created or changed, commands run and their results).
3. Decisions: choices made and why, including answers the user gave to questions.
4. Open questions: anything unresolved or waiting on the user.
5. Next steps: exactly what remains to do, in order.

Keep file paths, identifiers, commands and error messages verbatim. Omit pleasantries.`;

/** Text of the summary item: the marker, a one-line framing, then the model's summary. */
export function summaryText(summary: string): string {
  return `${SUMMARY_MARKER}
Earlier parts of this conversation were compacted. Another model instance worked on the task
and left this handoff summary; build on it and do not redo finished work:

${summary.trim()}`;
}

/** "context compacted (auto): ~41k → ~3k tokens": the line text surfaces print. */
export function compactionLine(e: { reason: string; before_tokens: number; after_tokens: number }): string {
  const k = (n: number) => (n >= 10_000 ? `${Math.round(n / 1000)}k` : String(n));
  return `context compacted (${e.reason}): ~${k(e.before_tokens)} → ~${k(e.after_tokens)} tokens`;
}
