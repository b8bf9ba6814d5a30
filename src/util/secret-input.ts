/**
 * Reading one secret line (an API key) from the person at the terminal, or from a pipe.
 *
 * - On a terminal: raw mode, nothing echoed (not even stars), Backspace edits, Enter ends,
 *   Ctrl-C / Ctrl-D (on an empty line) cancel. Raw mode is always restored.
 * - Not a terminal: the first line of stdin (a pipe or a file); the rest is ignored.
 * Resolves with the text (untrimmed) or null when cancelled or stdin ended empty.
 */

export interface SecretInputOptions {
  prompt: string;
  input?: NodeJS.ReadStream;
  /** Where the prompt goes (stderr by default, so stdout stays clean). */
  output?: NodeJS.WritableStream;
}

export function readSecretLine(opts: SecretInputOptions): Promise<string | null> {
  const input = opts.input ?? process.stdin;
  const output = opts.output ?? process.stderr;
  return input.isTTY ? fromTerminal(input, output, opts.prompt) : firstLine(input);
}

function fromTerminal(input: NodeJS.ReadStream, output: NodeJS.WritableStream, prompt: string) {
  return new Promise<string | null>((done) => {
    output.write(prompt);
    let text = "";
    const wasRaw = input.isRaw;
    input.setRawMode(true);
    input.resume();
    const finish = (value: string | null) => {
      input.off("data", onData);
      input.setRawMode(wasRaw);
      input.pause();
      output.write("\n");
      done(value);
    };
    const onData = (chunk: Buffer) => {
      for (const ch of chunk.toString("utf8")) {
        if (ch === "\r" || ch === "\n") return finish(text);
        if (ch === "\u0003" || (ch === "\u0004" && text === "")) return finish(null);
        if (ch === "\u007f" || ch === "\b") text = [...text].slice(0, -1).join("");
        else if (ch >= " ") text += ch;
      }
    };
    input.on("data", onData);
  });
}

async function firstLine(input: NodeJS.ReadStream): Promise<string | null> {
  let text = "";
  for await (const chunk of input) {
    text += chunk.toString();
    if (text.includes("\n")) break;
  }
  const line = text.split(/\r?\n/)[0];
  return text === "" ? null : line;
}
