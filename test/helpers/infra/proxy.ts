/**
 * A TCP proxy for partition tests: `startProxy(targetPort)` listens on a random port and pipes
 * every connection to 127.0.0.1:targetPort. `pause()` stops moving bytes both ways without
 * closing anything (a network partition: peers see silence, not resets); `resume()` lets the
 * held bytes through. `close()` ends every connection.
 */
import { spawn } from "node:child_process";
import { connect, createServer, type Socket } from "node:net";
import { createInterface } from "node:readline";
import { fileURLToPath } from "node:url";

export interface TestProxy {
  port: number;
  pause(): void;
  resume(): void;
  close(): Promise<void>;
}

export async function startProxy(targetPort: number): Promise<TestProxy> {
  const pairs: Array<[Socket, Socket]> = [];
  const held: Array<[Socket, Buffer]> = [];
  let paused = false;
  const relay = (from: Socket, to: Socket) =>
    from.on("data", (chunk: Buffer) => {
      if (paused) held.push([to, chunk]);
      else to.write(chunk);
    });
  const server = createServer((client) => {
    const upstream = connect(targetPort, "127.0.0.1");
    pairs.push([client, upstream]);
    relay(client, upstream);
    relay(upstream, client);
    const end = () => {
      client.destroy();
      upstream.destroy();
    };
    client.on("error", end);
    upstream.on("error", end);
    client.on("close", end);
    upstream.on("close", end);
  });
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", () => r()));
  const port = (server.address() as { port: number }).port;
  return {
    port,
    pause() {
      paused = true;
    },
    resume() {
      paused = false;
      for (const [to, chunk] of held.splice(0)) if (!to.destroyed) to.write(chunk);
    },
    close: () =>
      new Promise<void>((r) => {
        for (const [a, b] of pairs) {
          a.destroy();
          b.destroy();
        }
        server.close(() => r());
      }),
  };
}

/**
 * The same proxy in a child process, for a test whose own thread blocks on the connection it
 * cuts (the synchronous PostgreSQL store): `pause()` and `resume()` resolve once the child did
 * it. `close()` ends the child.
 */
export async function startProxyProcess(targetPort: number): Promise<{
  port: number;
  pause(): Promise<void>;
  resume(): Promise<void>;
  close(): Promise<void>;
}> {
  const self = fileURLToPath(import.meta.url);
  const code =
    `import(${JSON.stringify(self)}).then(async ({ startProxy }) => {` +
    `const p = await startProxy(${targetPort}); console.log(p.port);` +
    `require("node:readline").createInterface({ input: process.stdin }).on("line", (l) => {` +
    `if (l === "pause") p.pause(); else if (l === "resume") p.resume(); console.log(l); });` +
    `process.stdin.on("end", () => process.exit(0)); })`;
  const child = spawn(process.execPath, ["--import", "tsx", "-e", code], {
    stdio: ["pipe", "pipe", "inherit"],
  });
  const lines = createInterface({ input: child.stdout! })[Symbol.asyncIterator]();
  const next = async () => {
    const r = await lines.next();
    if (r.done) throw new Error("the proxy process ended");
    return r.value as string;
  };
  const port = Number(await next());
  const say = async (what: string) => {
    child.stdin!.write(`${what}\n`);
    while ((await next()) !== what);
  };
  return {
    port,
    pause: () => say("pause"),
    resume: () => say("resume"),
    close: async () => {
      const gone = new Promise((r) => child.once("exit", r));
      child.stdin!.end();
      child.kill("SIGTERM");
      await gone;
    },
  };
}
