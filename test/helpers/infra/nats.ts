/**
 * A throwaway nats-server for tests on a random port (no config file, no JetStream).
 * `startNats()` resolves once the port accepts connections; `stop()` kills it.
 * `pause()`/`resume()` (SIGSTOP/SIGCONT) are not used: a partition is made by stopping the server.
 */
import { type ChildProcess, spawn } from "node:child_process";
import { connect } from "node:net";
import { freePort } from "./postgres.js";

export interface TestNats {
  url: string;
  port: number;
  stop(): Promise<void>;
  /** Starts it again on the same port (after `stop`). */
  restart(): Promise<void>;
}

function canConnect(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const s = connect(port, "127.0.0.1");
    s.once("connect", () => {
      s.destroy();
      resolve(true);
    });
    s.once("error", () => resolve(false));
  });
}

export async function startNats(): Promise<TestNats> {
  const port = await freePort();
  let proc: ChildProcess | undefined;
  const launch = async () => {
    proc = spawn("nats-server", ["-a", "127.0.0.1", "-p", String(port)], { stdio: "ignore" });
    const deadline = Date.now() + 10_000;
    while (!(await canConnect(port))) {
      if (proc.exitCode !== null) throw new Error(`nats-server exited with ${proc.exitCode}`);
      if (Date.now() > deadline) throw new Error("nats-server did not start");
      await new Promise((r) => setTimeout(r, 50));
    }
  };
  await launch();
  const stop = async () => {
    const p = proc;
    if (!p || p.exitCode !== null) return;
    const exited = new Promise((r) => p.once("exit", r));
    p.kill("SIGKILL");
    await exited;
  };
  return { url: `nats://127.0.0.1:${port}`, port, stop, restart: launch };
}
