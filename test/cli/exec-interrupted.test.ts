/**
 * `tandem exec` says how an interrupted command really ended (README "Stopping Tandem"): the
 * lines it printed, then `interrupted (killed, exit N)` — not `exit ? (failed)`.
 */
import { spawn } from "node:child_process";
import { describe, expect, it } from "vitest";
import { BIN, startMockProcess } from "../helpers/cli.js";
import { tempDir } from "../helpers/index.js";
import { sandboxFallback } from "../helpers/system-tools.js";
import { waitUntil } from "../helpers/wait.js";

describe("tandem exec, a command cut off by SIGINT", () => {
  it("prints what it printed and that it was interrupted and killed, with the exit status", async () => {
    const mock = await startMockProcess({
      steps: [
        {
          output: [
            {
              type: "function_call",
              name: "exec_command",
              arguments: { cmd: "echo FIRST_$((1+1)); echo SECOND_$((1+2)); sleep 60", yield_time_ms: 30000 },
              call_id: "c1",
            },
          ],
        },
      ],
    });
    try {
      const home = tempDir();
      sandboxFallback(home);
      const child = spawn(BIN, ["exec", "go"], {
        env: {
          ...process.env,
          TANDEM_HOME: home,
          OPENAI_API_KEY: "k",
          OPENAI_BASE_URL: mock.url,
          NO_COLOR: "1",
        },
        cwd: tempDir("tandem-exec-cwd-"),
        stdio: ["ignore", "pipe", "pipe"],
      });
      let err = "";
      child.stderr.on("data", (d) => {
        err += d;
      });
      await waitUntil(() => err.includes("SECOND_3"), "the command's output on stderr");
      child.kill("SIGINT");
      const code = await new Promise<number | null>((r) => child.once("exit", r));
      expect(code).toBe(130);
      expect(err).toContain("FIRST_2\n");
      expect(err).toMatch(/interrupted \(killed, exit \d+\)/);
      expect(err).not.toContain("exit ?");
    } finally {
      await mock.stop();
    }
  });
});
