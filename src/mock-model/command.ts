/**
 * `tandem mock-model --script FILE [--port N] [--log FILE]`: runs the scripted model server
 * in the foreground. Prints exactly one line, `mock-model listening on <url>`, to stdout
 * once it listens, then serves until SIGINT/SIGTERM (or `signal` aborts) and closes cleanly.
 */
import { aborted, stopOnSignals } from "../util/signals.js";
import { startMockModel } from "./server.js";

export interface MockModelCommandOptions {
  script: string;
  port?: number;
  host?: string;
  log?: string;
  /** Stops the server like SIGINT does (for embedding and tests). */
  signal?: AbortSignal;
}

/**
 * Serves until `signal` aborts or SIGINT/SIGTERM (util/signals.ts). Resolves with the exit code:
 * 0 after `signal`, 130/143 after SIGINT/SIGTERM.
 * @throws MockModelScriptError for a bad script; the listen error when the port is taken.
 */
export async function runMockModelCommand(opts: MockModelCommandOptions): Promise<number> {
  const server = await startMockModel({
    script: opts.script,
    port: opts.port,
    host: opts.host,
    log: opts.log,
    retain: false,
  });
  // The handlers are in place before the line a supervisor waits for: a SIGTERM sent the moment
  // it reads "listening" never meets the default action (which exits without a word).
  const signals = opts.signal ? undefined : stopOnSignals("mock-model");
  process.stdout.write(`mock-model listening on ${server.url}\n`);
  try {
    await aborted(opts.signal ?? signals!.signal);
  } finally {
    await server.close();
    signals?.dispose();
  }
  return signals?.exitCode ?? 0;
}
