/** The bench helpers run end to end (small sizes) and leave no listeners behind. */
import { afterEach, describe, expect, it } from "vitest";
import { httpQuestionRoundTrip, sseFanout } from "../../bench/http.js";
import { Scripts } from "../../src/mock-model/index.js";
import { runtimeInternals } from "../../src/runtime/internals.testing.js";
import { type Harness, harness } from "../helpers/index.js";
import { waitUntil } from "../helpers/wait.js";

let h: Harness | undefined;
afterEach(async () => {
  await h?.close();
  h = undefined;
});

describe("HTTP bench helpers", () => {
  it("question round trip over HTTP + SSE", async () => {
    h = await harness({ script: Scripts.questionDemo() });
    const baseline = runtimeInternals(h.runtime).bus.listenerCount;
    const times = await httpQuestionRoundTrip(h.runtime, 50, 10);
    expect(times).toHaveLength(50);
    expect(runtimeInternals(h.runtime).broker.size).toBe(0);
    // Speed is bench's job: no timing threshold. SSE clients detach as their connections close:
    // polled, not a fixed 50 ms. Fails if a closed SSE stream leaves its bus listener behind.
    await waitUntil(
      () => runtimeInternals(h!.runtime).bus.listenerCount === baseline,
      "the SSE listeners to detach",
    );
    process.stdout.write(`http round trip p50 ${[...times].sort((a, b) => a - b)[25].toFixed(2)} ms\n`);
  });

  it("SSE fan-out delivers every event to every subscriber", async () => {
    h = await harness({ script: Scripts.questionDemo() });
    const r = await sseFanout(h.runtime, { subscribers: 10, events: 200 });
    expect(r.delivered).toBe(2_000);
    expect(r.eventsPerSecond).toBeGreaterThan(0);
  });
});
