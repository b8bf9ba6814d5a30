/**
 * End-to-end test helpers: a real Runtime (real SQLite in a temp TANDEM_HOME) talking to
 * `tandem mock-model` over real HTTP. Nothing of Tandem's own is mocked.
 */
import { mkdirSync, mkdtempSync } from "node:fs";
import { homedir, tmpdir } from "node:os";
import { join } from "node:path";
import { loadConfig, resolveProvider } from "../../src/config/load.js";
import { type MockModel, type Script, startMockModel } from "../../src/mock-model/index.js";
import { createResponsesClient } from "../../src/model/responses.js";
import { createResponsesWsClient } from "../../src/model/responses-ws.js";
import type { Event, EventOf, Stamped } from "../../src/protocol/events.js";
import { Runtime } from "../../src/runtime/core.js";
import { openStore } from "../../src/store/index.js";
import type { IdSource } from "../../src/util/ids.js";
import { hasTool } from "./system-tools.js";

export function tempDir(prefix = "tandem-test-"): string {
  return mkdtempSync(join(tmpdir(), prefix));
}

/**
 * A fresh directory outside every writable root of the sandbox (the workspace, /tmp, /var/tmp,
 * /dev/shm), for tests where only an approved, unsandboxed write may reach it: under /var/lib
 * (`/var/lib/tandem-test-…`), never in $HOME. The caller removes it (afterEach or finally) with
 * `rmSync(dir, { recursive: true, force: true })`. Where /var/lib is not writable (not root), it
 * falls back to $HOME, still removed by the caller.
 */
export function outsideDir(prefix = "tandem-test-"): string {
  try {
    mkdirSync("/var/lib", { recursive: true });
    return mkdtempSync(join("/var/lib", prefix));
  } catch {
    return mkdtempSync(join(homedir(), `.${prefix}`));
  }
}

export interface Harness {
  runtime: Runtime;
  model: MockModel;
  home: string;
  cwd: string;
  events: Stamped[];
  /** Resolves with the first event matching `pred` (already seen or future). */
  waitFor<T extends Event>(pred: (e: Event) => e is T, timeoutMs?: number): Promise<T>;
  waitFor(pred: (e: Event) => boolean, timeoutMs?: number): Promise<Event>;
  close(): Promise<void>;
}

export async function harness(opts: {
  script: Script | string;
  overrides?: string[];
  ids?: IdSource;
  windowId?: string;
  installationId?: string;
  home?: string;
  cwd?: string;
  /** The SQLite file (default `<home>/state.db`). */
  store?: string;
}): Promise<Harness> {
  const model = await startMockModel({ script: opts.script });
  const home = opts.home ?? tempDir("tandem-home-");
  const cwd = opts.cwd ?? tempDir("tandem-cwd-");
  // Without bubblewrap, a test that does not choose a sandbox runs its commands with full access
  // in its temp dirs (see sandboxFallback); a test's own sandbox_mode always wins.
  const choosesSandbox = (opts.overrides ?? []).some((o) => /^\s*sandbox_mode\s*=/.test(o));
  const fallback = hasTool("bwrap") || choosesSandbox ? [] : ['sandbox_mode="danger-full-access"'];
  const { settings } = loadConfig({
    home,
    overrides: [`openai_base_url="${model.url}"`, "retry_base_ms=10", ...fallback, ...(opts.overrides ?? [])],
  });
  const provider = resolveProvider(settings, { OPENAI_API_KEY: "test-key" });
  const clientOpts = {
    baseUrl: provider.baseUrl,
    apiKey: "test-key",
    idleTimeoutMs: settings.stream_idle_timeout_ms,
  };
  // A provider on the WebSocket wire talks to the same mock over its upgrade route (requirements L13).
  const client =
    provider.wire === "responses_websocket"
      ? createResponsesWsClient(clientOpts)
      : createResponsesClient(clientOpts);
  const runtime = new Runtime({
    settings,
    store: openStore(opts.store ?? join(home, "state.db")),
    model: client,
    provider,
    ids: opts.ids,
    windowId: opts.windowId,
    installationId: opts.installationId,
    home,
  });
  const events: Stamped[] = [];
  const waiters: Array<{ pred: (e: Event) => boolean; resolve: (e: Event) => void }> = [];
  runtime.subscribe((s) => {
    events.push(s);
    for (const w of [...waiters]) {
      if (w.pred(s.event)) {
        waiters.splice(waiters.indexOf(w), 1);
        w.resolve(s.event);
      }
    }
  });
  const waitFor = (pred: (e: Event) => boolean, timeoutMs = 15_000) => {
    const seen = events.find((s) => pred(s.event));
    if (seen) return Promise.resolve(seen.event);
    return new Promise<Event>((resolve, reject) => {
      const t = setTimeout(
        () =>
          reject(
            new Error(
              `timed out waiting for event; last: ${events
                .slice(-3)
                .map((e) => e.event.type)
                .join(",")}`,
            ),
          ),
        timeoutMs,
      );
      waiters.push({
        pred,
        resolve: (e) => {
          clearTimeout(t);
          resolve(e);
        },
      });
    });
  };
  return {
    runtime,
    model,
    home,
    cwd,
    events,
    waitFor: waitFor as Harness["waitFor"],
    async close() {
      await runtime.shutdown().catch(() => {});
      await model.close();
    },
  };
}

/** Decides an approval (its `decision` question) with one of its labels, as a test surface. */
export function decide(h: Harness, event: EventOf<"question.requested">, label: string): void {
  const r = h.runtime.questions.reply(
    event.thread_id,
    event.request.request_id,
    { answers: { decision: { selected: [label] } } },
    { kind: "test" },
  );
  if (!r.ok) throw new Error(`decide(${label}) refused: ${r.message}`);
}
