/**
 * Long-session figures (README "Long sessions"): printed, never asserted.
 *
 * - `longSession`: 200 tool round trips whose outputs are 20 KB each, over real HTTP against
 *   `tandem mock-model` in its own process (so the RSS is Tandem's, not the mock's request log),
 *   with a 128k-token window: total time, this process's peak RSS, and the request size (bytes of
 *   `input`) before and after each compaction, read from the mock's request log.
 * - `resumeCompacted`: a stored 500-turn thread with a compaction near its end is opened by a
 *   fresh Runtime (new store handle) and sends its next request: time from `openThread` to the
 *   request reaching the model client (in-process, so this is Tandem's own cost: load, view,
 *   prompt build), and that request's size against the uncompacted history's.
 *
 * Run alone: `npm run build && node --import tsx bench/compaction.ts`.
 */
import { mkdtempSync, readFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { COMPACTION_MARKER, summaryText } from "../src/agent/compaction-prompt.js";
import { loadConfig, resolveProvider } from "../src/config/load.js";
import { createResponsesClient } from "../src/model/responses.js";
import type { ModelClient, Prompt } from "../src/model/types.js";
import { type ResponseItem, userMessage } from "../src/protocol/items.js";
import { Runtime } from "../src/runtime/core.js";
import { runtimeInternals, threadInternals } from "../src/runtime/internals.testing.js";
import { openStore } from "../src/store/index.js";
import { startMockProcess } from "../test/helpers/cli.js";
import { fmt, line, median } from "./stats.js";

const tmp = (p: string) => mkdtempSync(join(tmpdir(), p));
const kb = (n: number) => `${(n / 1024).toFixed(0)} KB`;

export async function longSession(rounds = 200, outputBytes = 20_000): Promise<void> {
  const steps: unknown[] = Array.from({ length: rounds }, (_, i) => ({
    output: [
      {
        type: "function_call",
        name: "exec_command",
        arguments: { cmd: `head -c ${outputBytes} /dev/zero | tr '\\0' x` },
        call_id: `c${i}`,
      },
    ],
  }));
  steps.push({ output: [{ type: "message", text: "done" }] });
  const baseMiB = process.resourceUsage().maxRSS / 1024;
  const mock = await startMockProcess({ steps });
  const home = tmp("tandem-bench-long-");
  const { settings } = loadConfig({
    home,
    overrides: [
      "include_environment_context=false",
      "include_agents_md=false",
      'sandbox_mode="danger-full-access"',
      "model_context_window=128000",
    ],
  });
  const provider = resolveProvider(settings, { OPENAI_API_KEY: "k", OPENAI_BASE_URL: mock.url });
  const rt = new Runtime({
    settings,
    store: openStore(join(home, "state.db")),
    model: createResponsesClient({ baseUrl: provider.baseUrl, apiKey: "k", idleTimeoutMs: 60_000 }),
    provider,
  });
  const t0 = performance.now();
  const outcome = await rt.threads.start({ cwd: tmp("tandem-bench-long-cwd-") }).startTurn("run the commands")
    .done;
  const ms = performance.now() - t0;
  const rssMiB = process.resourceUsage().maxRSS / 1024;
  await rt.shutdown();
  await mock.stop();

  const bodies = readFileSync(mock.log, "utf8")
    .split("\n")
    .filter(Boolean)
    .map((l) => JSON.parse(l) as { input: Array<{ content?: Array<{ text?: string }> }> });
  const size = (i: number) => JSON.stringify(bodies[i]?.input ?? []).length;
  const isCompaction = (b: (typeof bodies)[number]) =>
    (b.input.at(-1)?.content?.[0]?.text ?? "").startsWith(COMPACTION_MARKER);
  const around: string[] = [];
  bodies.forEach((b, i) => {
    if (isCompaction(b)) around.push(`${kb(size(i - 1))}→${kb(size(i + 1))}`);
  });
  line(
    `long session in this process: ${rounds} tool round trips, ${kb(outputBytes)} outputs, 128k window`,
    `${(ms / 1000).toFixed(2)} s, peak RSS ${rssMiB.toFixed(0)} MiB (${baseMiB.toFixed(0)} before), ${outcome.status}`,
  );
  line(
    `  compactions: ${around.length}; request input before→after each`,
    around.length ? around.slice(0, 4).join(", ") + (around.length > 4 ? ", …" : "") : "none",
  );
  const largest = Math.max(...bodies.map((_, i) => size(i)));
  line("  largest request input of the session", kb(largest));
}

/** Stores a 500-turn thread (user, call, 2 KB output, answer per turn) compacted near the end. */
async function storeLongThread(home: string, turns: number): Promise<string> {
  const { settings } = loadConfig({ home, overrides: ["include_agents_md=false"] });
  const model: ModelClient = { async *stream() {} };
  const provider = resolveProvider(settings, {
    OPENAI_API_KEY: "k",
    OPENAI_BASE_URL: "http://127.0.0.1:1/v1",
  });
  const rt = new Runtime({ settings, store: openStore(join(home, "state.db")), model, provider });
  const thread = rt.threads.start({ cwd: home });
  runtimeInternals(rt).registry.get(thread.id)?.persist();
  const add = (item: ResponseItem) => threadInternals(rt, thread.id).recordItem(item, null);
  for (let t = 0; t < turns; t++) {
    add(userMessage(`turn ${t}: do the next thing`));
    add({ type: "function_call", name: "exec_command", arguments: '{"cmd":"ls"}', call_id: `c${t}` });
    add({ type: "function_call_output", call_id: `c${t}`, output: "f".repeat(2000) });
    add({ type: "message", role: "assistant", content: [{ type: "output_text", text: `done ${t}` }] });
    if (t === turns - 5) {
      const meta = {
        reason: "auto",
        carried_call_ids: [],
        before_tokens: 0,
        after_tokens: 0,
        covered_items: 0,
      };
      add({
        ...userMessage(summaryText("A summary of the first turns.")),
        tandem_compaction: meta,
      } as ResponseItem);
    }
  }
  const id = thread.id;
  await rt.shutdown();
  return id;
}

export async function resumeCompacted(turns = 500, runs = 7): Promise<void> {
  const home = tmp("tandem-bench-resume-");
  const id = await storeLongThread(home, turns);
  const { settings } = loadConfig({ home, overrides: ["include_agents_md=false"] });
  const times: number[] = [];
  let sent = 0;
  let full = 0;
  for (let r = 0; r < runs; r++) {
    let resolveSent: (p: Prompt) => void = () => {};
    const first = new Promise<Prompt>((res) => {
      resolveSent = res;
    });
    const model: ModelClient = {
      async *stream(prompt) {
        resolveSent(prompt);
        yield { type: "completed" };
      },
    };
    const provider = resolveProvider(settings, {
      OPENAI_API_KEY: "k",
      OPENAI_BASE_URL: "http://127.0.0.1:1/v1",
    });
    const t0 = performance.now();
    const rt = new Runtime({ settings, store: openStore(join(home, "state.db")), model, provider });
    const thread = rt.threads.open(id);
    const turn = thread.startTurn("and now?");
    const prompt = await first;
    times.push(performance.now() - t0);
    sent = JSON.stringify(prompt.input).length;
    full = JSON.stringify(thread.items()).length;
    await turn.done;
    await rt.shutdown();
  }
  line(
    `a ${turns}-turn thread (compacted) resumes and sends its next request`,
    `${fmt(median(times))} (median of ${runs})`,
    "< 50 ms",
  );
  line("  its request input vs the stored history", `${kb(sent)} vs ${kb(full)}`);
}

if (import.meta.url === `file://${process.argv[1]}`) {
  await longSession();
  await resumeCompacted();
}
