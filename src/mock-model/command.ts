/**
 * `tandem mock-model --script FILE [--port N] [--log FILE]`: runs the scripted model server
 * in the foreground. Prints exactly one line, `mock-model listening on <url>`, to stdout
 * once it listens, then serves until SIGINT/SIGTERM (or `signal` aborts) and closes cleanly.
 */
import { startMockModel } from "./server.js";

export interface MockModelCommandOptions {
  script: string;
  port?: number;
  host?: string;
  log?: string;
  /** Stops the server like SIGINT does (for embedding and tests). */
  signal?: AbortSignal;
}

/** @throws MockModelScriptError for a bad script; the listen error when the port is taken. */
export async function runMockModelCommand(opts: MockModelCommandOptions): Promise<void> {
  const server = await startMockModel({
    script: opts.script,
    port: opts.port,
    host: opts.host,
    log: opts.log,
    retain: false,
  });
  process.stdout.write(`mock-model listening on ${server.url}\n`);
  let stop = () => {};
  try {
    await new Promise<void>((resolve) => {
      stop = resolve;
      process.once("SIGINT", stop);
      process.once("SIGTERM", stop);
      if (opts.signal?.aborted) resolve();
      opts.signal?.addEventListener("abort", stop, { once: true });
    });
  } finally {
    process.off("SIGINT", stop);
    process.off("SIGTERM", stop);
    opts.signal?.removeEventListener("abort", stop);
    await server.close();
  }
}
