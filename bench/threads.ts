/**
 * Many-threads figures (issue "Speed that holds as the work grows", item 5): a store holding
 * 10,000 threads, one of them with 5,000 history items, in a temp `$TANDEM_HOME`.
 *   - `tandem threads` (its default 50 rows), wall time minus `tandem --version`'s: the listing's
 *     own cost in the built CLI;
 *   - `GET /thread` (its default 100 rows) over real HTTP from `tandem serve`'s app;
 *   - `GET /thread/:id` of the 5,000-item thread (what the web app and reload fetch);
 *   - the web app's first paint of that thread in chromium (when installed): from selecting the
 *     thread to its last message on screen.
 * Printed with their targets; nothing is asserted.
 */
import { spawnSync } from "node:child_process";
import { existsSync, mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { performance } from "node:perf_hooks";
import { loadConfig, resolveProvider } from "../src/config/load.js";
import type { ResponseItem } from "../src/protocol/items.js";
import type { ThreadRecord } from "../src/protocol/threads.js";
import { Runtime } from "../src/runtime/core.js";
import { openStore } from "../src/store/index.js";
import { startHttpServer } from "../src/surfaces/http/index.js";
import { fmt, line, median } from "./stats.js";

const BIN = resolve(import.meta.dirname, "../bin/tandem");
const TOKEN = "bench-token-0123456789abcdef";

/** Fills `home`'s store: `threads` threads, the newest holding `items` items in 1 turn per 4. */
function fill(home: string, cwd: string, threads: number, items: number): { big: string; other: string } {
  const store = openStore(join(home, "state.db"));
  const now = Date.now();
  const base: Omit<ThreadRecord, "id" | "session_id" | "created_at" | "updated_at" | "title"> = {
    parent_id: null,
    cwd,
    model: "gpt-5",
    mode: "default",
    status: "idle",
    settings: {},
  } as never;
  let big = "";
  let other = "";
  const db = (store as unknown as { db?: { transaction(f: () => void): () => void } }).db;
  const run = (f: () => void) => (db ? db.transaction(f)() : f());
  run(() => {
    for (let i = 0; i < threads; i++) {
      const id = `0190${String(i).padStart(4, "0")}-0000-7000-8000-${String(i).padStart(12, "0")}`;
      store.createThread({
        ...base,
        id,
        session_id: id,
        created_at: now - (threads - i) * 1000,
        updated_at: now - (threads - i) * 1000,
        title: `Thread number ${i}: fix the flaky test in module ${i % 97}`,
      } as ThreadRecord);
      other = big;
      big = id;
    }
  });
  run(() => {
    for (let i = 0; i < items; i += 4) {
      const turn = `turn_${i}`;
      store.putTurn({
        id: turn,
        thread_id: big,
        status: "completed",
        started_at: now,
        ended_at: now,
        usage: null,
        error: null,
      });
      const call = `call_${i}`;
      const seq: ResponseItem[] = [
        {
          type: "message",
          role: "user",
          content: [{ type: "input_text", text: `Step ${i}: run the tests` }],
        },
        { type: "function_call", name: "exec_command", call_id: call, arguments: '{"cmd":"npm test"}' },
        {
          type: "function_call_output",
          call_id: call,
          output: `Process exited with code 0\nOutput:\n${"ok ".repeat(60)}`,
        },
        {
          type: "message",
          role: "assistant",
          content: [{ type: "output_text", text: `Done with step ${i}. **All green.**` }],
        },
      ] as never;
      for (const it of seq) store.appendItem(big, turn, it);
    }
  });
  store.close();
  return { big, other };
}

function wall(args: string[], env: NodeJS.ProcessEnv, runs = 7): number {
  const t: number[] = [];
  for (let i = 0; i < runs; i++) {
    const s = performance.now();
    const r = spawnSync(BIN, args, { env, stdio: ["ignore", "pipe", "pipe"] });
    t.push(performance.now() - s);
    if (r.status !== 0) throw new Error(`tandem ${args.join(" ")} failed: ${r.stderr}`);
  }
  return median(t);
}

async function timed(f: () => Promise<unknown>, runs = 9): Promise<number> {
  await f();
  const t: number[] = [];
  for (let i = 0; i < runs; i++) {
    const s = performance.now();
    await f();
    t.push(performance.now() - s);
  }
  return median(t);
}

export async function threadFigures(threads = 10_000, items = 5_000): Promise<void> {
  const home = mkdtempSync(join(tmpdir(), "tandem-bench-threads-"));
  const cwd = mkdtempSync(join(tmpdir(), "tandem-bench-threads-cwd-"));
  const s = performance.now();
  const { big, other } = fill(home, cwd, threads, items);
  const filled = performance.now() - s;
  line(
    `many threads: store of ${threads.toLocaleString()} threads (+${items.toLocaleString()} items) filled in`,
    fmt(filled),
  );

  if (existsSync(join(import.meta.dirname, "../dist"))) {
    const env = { ...process.env, TANDEM_HOME: home, OPENAI_API_KEY: "k" };
    const bare = wall(["--version"], env);
    const list = wall(["threads"], env);
    line(
      `tandem threads, ${threads.toLocaleString()} stored (wall − --version)`,
      `${fmt(list - bare)} (wall ${fmt(list)})`,
      "≤ 50 ms",
    );
  } else line("tandem threads", "not built (npm run build)");

  const { settings } = loadConfig({ home, overrides: [] });
  const runtime = new Runtime({
    settings,
    store: openStore(join(home, "state.db")),
    model: { async *stream() {} } as never,
    provider: resolveProvider(settings, { OPENAI_API_KEY: "k", OPENAI_BASE_URL: "http://127.0.0.1:1/v1" }),
  });
  const server = await startHttpServer(runtime, { token: TOKEN, port: 0, defaultCwd: cwd });
  const get = async (path: string) => {
    const r = await fetch(server.url + path, { headers: { authorization: `Bearer ${TOKEN}` } });
    if (!r.ok) throw new Error(`GET ${path}: ${r.status}`);
    return r.text();
  };
  line(
    `GET /thread, ${threads.toLocaleString()} stored (100 rows)`,
    fmt(await timed(() => get("/thread"))),
    "≤ 50 ms",
  );
  const detail = await get(`/thread/${big}`);
  line(
    `GET /thread/:id of ${items.toLocaleString()} items (${(detail.length / 1e6).toFixed(1)} MB)`,
    fmt(await timed(() => get(`/thread/${big}`))),
    "≤ 100 ms",
  );
  await webFirstPaint(server.url, big, other, `Done with step ${items - 4}`).catch((e) =>
    line("web first paint", `not measured: ${(e as Error).message}`),
  );
  await server.close();
  await runtime.shutdown();
}

/**
 * Chromium: open the page on a small thread, then select the big one; the time runs from the
 * click to its last answer on screen, as playwright sees it (so it includes playwright's own
 * polling; the server runs in this process, its work for the click is the GET measured above).
 */
async function webFirstPaint(url: string, id: string, other: string, last: string): Promise<void> {
  if (!existsSync("/usr/bin/chromium")) {
    line("web app: first paint of a 5,000-item thread", "not measured (apt-get install chromium)");
    return;
  }
  const { chromium } = await import("playwright-core");
  const browser = await chromium.launch({
    executablePath: "/usr/bin/chromium",
    args: ["--no-sandbox", "--headless", "--disable-gpu", "--no-first-run"],
  });
  try {
    const t: number[] = [];
    for (let i = 0; i < 6; i++) {
      const page = await browser.newPage({ viewport: { width: 1280, height: 800 } });
      await page.goto(`${url}/#token=${TOKEN}&thread=${other}`);
      await page.locator("#conn[data-state=live]").waitFor();
      await page.locator(`#threads li[data-id="${id}"] .item`).waitFor();
      const s = performance.now();
      await page.locator(`#threads li[data-id="${id}"] .item`).click();
      await page.locator("#transcript .md", { hasText: last }).waitFor({ timeout: 60_000 });
      const ms = performance.now() - s;
      if (i > 0) t.push(ms); // the first run warms the server's caches and chromium's
      await page.close();
    }
    line("web app: first paint of a 5,000-item thread (chromium)", fmt(median(t)), "≤ 300 ms");
  } finally {
    await browser.close();
  }
}
