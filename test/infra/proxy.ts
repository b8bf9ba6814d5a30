/**
 * A TCP proxy for partition tests: `startProxy(targetPort)` listens on a random port and pipes
 * every connection to 127.0.0.1:targetPort. `pause()` stops moving bytes both ways without
 * closing anything (a network partition: peers see silence, not resets); `resume()` lets the
 * held bytes through. `close()` ends every connection.
 */
import { connect, createServer, type Socket } from "node:net";

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
