/**
 * A throwaway nats-server for tests on a random port (no JetStream).
 * `startNats()` resolves once the port accepts connections; `stop()` kills it.
 * `pause()`/`resume()` (SIGSTOP/SIGCONT) are not used: a partition is made by stopping the server.
 *
 * Options: `host` (listen address, default 127.0.0.1) and `config`, nats-server configuration
 * text (an `authorization {…}` or `tls {…}` block, an `operator`/`resolver`) written to a file
 * in a temp dir with the listen address; see test/helpers/infra/tls.ts and nats-jwt.ts.
 */
import { type ChildProcess, spawn } from "node:child_process";
import { mkdtempSync, writeFileSync } from "node:fs";
import { connect } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { freePort } from "./postgres.js";

export interface TestNats {
  url: string;
  port: number;
  stop(): Promise<void>;
  /** Starts it again on the same port (after `stop`). */
  restart(): Promise<void>;
}

function canConnect(port: number, host: string): Promise<boolean> {
  return new Promise((resolve) => {
    const s = connect(port, host);
    s.once("connect", () => {
      s.destroy();
      resolve(true);
    });
    s.once("error", () => resolve(false));
  });
}

export async function startNats(opts: { host?: string; config?: string } = {}): Promise<TestNats> {
  const port = await freePort();
  const host = opts.host ?? "127.0.0.1";
  let args = ["-a", host, "-p", String(port)];
  if (opts.config !== undefined) {
    const file = join(mkdtempSync(join(tmpdir(), "tandem-nats-")), "nats.conf");
    writeFileSync(file, `listen: "${host}:${port}"\n${opts.config}\n`);
    args = ["-c", file];
  }
  let proc: ChildProcess | undefined;
  let output = "";
  const launch = async () => {
    output = "";
    proc = spawn("nats-server", args, { stdio: ["ignore", "ignore", "pipe"] });
    proc.stderr!.on("data", (d) => {
      output += d;
    });
    const deadline = Date.now() + 10_000;
    while (!(await canConnect(port, host))) {
      if (proc.exitCode !== null) throw new Error(`nats-server exited with ${proc.exitCode}: ${output}`);
      if (Date.now() > deadline) throw new Error(`nats-server did not start: ${output}`);
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
  const shown = host.includes(":") ? `[${host}]` : host;
  return { url: `nats://${shown}:${port}`, port, stop, restart: launch };
}
