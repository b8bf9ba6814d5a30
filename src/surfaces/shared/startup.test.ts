/**
 * The one start-up path (startup.ts) in-process, with a real runtime over a temp TANDEM_HOME: how a
 * runtime that cannot start ends (exit code, one line, the surface's own code never runs), and the
 * order of shutdown. test/cli/config-errors.test.ts checks the same codes through every command.
 */
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { tempDir } from "../../../test/helpers/index.js";
import { BusConfigError } from "../../cluster/bus-connect.js";
import { createRuntime } from "../../runtime/create.js";
import { runSurface, startFailureCode } from "./startup.js";

const lines = () => {
  const out: string[] = [];
  return { out, stderr: { write: (t: string) => out.push(...t.trimEnd().split("\n")) } };
};
const keyed = (home: string) => ({ TANDEM_HOME: home, OPENAI_API_KEY: "k" });

describe("runSurface", () => {
  // Fails if a start-up failure runs the surface anyway, prints more than its message or a stack, or
  // maps to another code than README says (1 no key, 2 configuration or a damaged store).
  it("a runtime that cannot start: one line, its exit code, the surface never runs", async () => {
    const corrupt = tempDir();
    mkdirSync(corrupt, { recursive: true });
    writeFileSync(join(corrupt, "state.db"), Buffer.alloc(4096, 7));
    // [what, env, -c, exit code, first line, lines] (the no-key message adds how to try the demo).
    const cases: Array<[string, Record<string, string>, string[], number, RegExp, number]> = [
      ["no key", { TANDEM_HOME: tempDir() }, [], 1, /^tandem x: no API key/, 2],
      ["config", keyed(tempDir()), ["model="], 2, /^tandem x: .*model= has no value/, 1],
      ["store", keyed(corrupt), [], 2, /^tandem x: .*state\.db.*not a database/, 1],
    ];
    for (const [what, env, config, code, message, n] of cases) {
      const { out, stderr } = lines();
      let ran = false;
      const got = await runSurface({ name: "x", flags: { config }, io: { env, stderr } }, async () => {
        ran = true;
        return 0;
      });
      expect({ what, got, ran, n: out.length }).toEqual({ what, got: code, ran: false, n });
      expect(out[0]).toMatch(message);
    }
    expect(startFailureCode(new Error("anything else"))).toBe(1);
  });

  // Fails if a configuration warning is lost or not labelled with the command, or stops the start.
  it("a configuration warning is one labelled line, and the surface runs", async () => {
    const { out, stderr } = lines();
    const code = await runSurface(
      {
        name: "x",
        flags: { config: ["no_such_key=1"] },
        io: { env: keyed(tempDir()), stderr, signal: AbortSignal.abort() },
      },
      async () => 5,
    );
    expect(code).toBe(5);
    expect(out).toEqual([expect.stringMatching(/^tandem x: warning: .*no_such_key/)]);
  });

  // Fails if shutdown skips the runtime, runs out of order, stops at a failing step, or if the
  // body's code (or 1 when it throws) is not what the surface exits with.
  it("stops on io.signal and shuts down in order: runtime, after-steps, cluster", async () => {
    const order: string[] = [];
    const ctrl = new AbortController();
    const { out, stderr } = lines();
    const code = await runSurface(
      {
        name: "x",
        flags: {},
        io: { signal: ctrl.signal, stderr },
        create: async () => {
          const { runtime } = createRuntime({ home: tempDir(), model: { stream: async function* () {} } });
          const shutdown = runtime.shutdown.bind(runtime);
          runtime.shutdown = async () => {
            order.push("runtime");
            await shutdown();
          };
          return runtime;
        },
        cluster: async () => ({ close: async () => void order.push("cluster") }),
      },
      async ({ stopped, after: atShutdown }) => {
        atShutdown(() => {
          order.push("after 1");
          throw new Error("step failed");
        });
        atShutdown(() => void order.push("after 2"));
        setImmediate(() => ctrl.abort());
        await stopped;
        return 7;
      },
    );
    expect(code).toBe(7);
    expect(order).toEqual(["runtime", "after 1", "after 2", "cluster"]);
    expect(out).toEqual(["tandem x: shutdown: step failed"]);

    const thrown = lines();
    const failed = await runSurface(
      {
        name: "x",
        flags: {},
        io: { signal: AbortSignal.abort(), stderr: thrown.stderr },
        create: async () =>
          createRuntime({ home: tempDir(), model: { stream: async function* () {} } }).runtime,
      },
      async () => {
        throw new Error("boom");
      },
    );
    expect(failed).toBe(1);
    expect(thrown.out).toEqual(["tandem x: boom"]);
  });

  // Fails if a cluster that cannot be joined leaves the runtime open or exits with the wrong code.
  it("a cluster that cannot be joined: the runtime shuts down, 2 for its configuration, else 1", async () => {
    for (const [err, want] of [
      [new BusConfigError("--bus needs a postgres:// --store"), 2],
      [new Error("nats: connection refused"), 1],
    ] as const) {
      let closed = false;
      const { out, stderr } = lines();
      const code = await runSurface(
        {
          name: "x",
          flags: {},
          io: { signal: new AbortController().signal, stderr },
          create: async () => {
            const { runtime } = createRuntime({ home: tempDir(), model: { stream: async function* () {} } });
            runtime.shutdown = async () => {
              closed = true;
            };
            return runtime;
          },
          cluster: async () => {
            throw err;
          },
        },
        async () => 0,
      );
      expect({ code, closed, out }).toEqual({ code: want, closed: true, out: [`tandem x: ${err.message}`] });
    }
  });
});
