/**
 * Human output for `tandem exec`: the answer streams to stdout; progress (commands, their
 * output, reasoning, retries) goes to stderr so stdout stays pipeable.
 */
import type { Event } from "../../protocol/events.js";
import type { QuestionRequest } from "../../protocol/questions.js";

const dim = (s: string, color: boolean) => (color ? `\x1b[2m${s}\x1b[0m` : s);

export class HumanPrinter {
  private streamed = new Set<string>();
  private atLineStart = true;

  constructor(
    private readonly out: NodeJS.WritableStream,
    private readonly err: NodeJS.WritableStream,
    private readonly color: boolean,
  ) {}

  handle(event: Event): void {
    switch (event.type) {
      case "agent_message.delta":
        this.streamed.add(event.item_id);
        this.out.write(event.delta);
        this.atLineStart = event.delta.endsWith("\n");
        break;
      case "item.completed": {
        const item = event.item;
        if (item.type === "agent_message") {
          if (!this.streamed.has(item.id)) this.out.write(item.text);
          if (!this.atLineStart || !this.streamed.has(item.id)) this.out.write("\n");
          this.atLineStart = true;
        } else if (item.type === "reasoning") {
          this.err.write(`${dim(`thinking: ${item.text}`, this.color)}\n`);
        } else if (item.type === "command_execution") {
          this.err.write(dim(`  exit ${item.exit_code ?? "?"} (${item.status})\n`, this.color));
        } else if (item.type === "file_change" && item.error) {
          this.err.write(`apply_patch failed: ${item.error}\n`);
        } else if (item.type === "tool_call") {
          this.err.write(dim(`  ${item.tool}: ${item.status}\n`, this.color));
        }
        break;
      }
      case "item.started":
        if (event.item.type === "command_execution") this.err.write(`$ ${event.item.command}\n`);
        else if (event.item.type === "tool_call") this.err.write(`→ ${event.item.tool}\n`);
        break;
      case "exec.output_delta":
        this.err.write(dim(event.chunk, this.color));
        break;
      case "error":
        // A final error is the failed turn's own: the turn.completed line below says it once.
        if (event.will_retry) this.err.write(dim(`${event.error.message}\n`, this.color));
        break;
      case "turn.completed":
        if (event.status !== "completed")
          this.err.write(`turn ${event.status}${event.error ? `: ${event.error.message}` : ""}\n`);
        break;
    }
  }

  question(request: QuestionRequest, resumeHint?: string): void {
    this.err.write(formatQuestion(request));
    if (resumeHint) this.err.write(`${resumeHint}\n`);
  }
}

export function formatQuestion(request: QuestionRequest): string {
  const lines = [
    `? The model asks (${request.questions.length} question${request.questions.length > 1 ? "s" : ""}):`,
  ];
  for (const q of request.questions) {
    lines.push(`  [${q.id}]${q.secret ? " (secret)" : ""} ${q.header ? `${q.header}: ` : ""}${q.prompt}`);
    for (const [i, o] of q.options.entries()) {
      lines.push(`     ${i + 1}. ${o.label}${o.description ? ` — ${o.description}` : ""}`);
    }
    if (q.kind === "multi") lines.push("     (several allowed, e.g. 1,3)");
    if (q.allow_other) lines.push(q.options.length ? "     or type your own answer" : "     (free text)");
  }
  return `${lines.join("\n")}\n`;
}
