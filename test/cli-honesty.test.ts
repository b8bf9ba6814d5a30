/**
 * Issue 10 "CLI honesty", end to end through `./bin/tandem`: connection errors that name the
 * URL and the cause once (item 7); more items join this file as they land.
 */
import { createServer } from "node:net";
import { describe, expect, it } from "vitest";
import { jsonLines, runTandem } from "./cli-helpers.js";
import { tempDir } from "./helpers.js";

/** A localhost port nothing listens on (bound, then released). */
async function closedPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
  const port = (server.address() as { port: number }).port;
  await new Promise<void>((r) => server.close(() => r()));
  return port;
}

describe("connection errors (item 7)", () => {
  it("name the URL and the cause, once, in human output and in --json", async () => {
    const url = `http://127.0.0.1:${await closedPort()}/v1`;
    const env = { TANDEM_HOME: tempDir(), OPENAI_API_KEY: "k", OPENAI_BASE_URL: url };
    const expected = `cannot reach ${url}: connection refused`;

    // fails if the SDK's bare "Connection error." is shown, or the failure is printed twice
    // (an `error:` line and a `turn failed:` line for the same error).
    const human = await runTandem(["exec", "-c", "retry_base_ms=1", "hi"], { env });
    expect(human.code).toBe(1);
    const lines = human.stderr.trim().split("\n");
    expect(lines.at(-1)).toBe(`turn failed: ${expected}`);
    expect(human.stderr.split(expected).length - 1).toBe(lines.length);
    // Each retry is one line naming the same cause (4 retries by default), then the failure.
    expect(lines.slice(0, -1).every((l) => l.startsWith(`${expected}; retrying in `))).toBe(true);
    expect(lines).toHaveLength(5);
    expect(human.stderr).not.toContain("Connection error.");

    // fails if --json's error / turn.failed carry the SDK's message instead of URL and cause.
    const json = await runTandem(["exec", "--json", "-c", "stream_max_retries=0", "hi"], { env });
    expect(json.code).toBe(1);
    const events = jsonLines(json.stdout);
    expect(events.find((e) => e.type === "error")).toEqual({ type: "error", message: expected });
    expect(events.at(-1)).toEqual({ type: "turn.failed", error: { message: expected } });
  });
});
