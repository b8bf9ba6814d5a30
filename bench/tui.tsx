/**
 * Rendering benchmarks for `npm run bench` (no assertions here; the caller prints figures).
 *
 * - `benchRender(tokens)`: streams N Markdown tokens (paragraphs, lists, code blocks) as
 *   `agent_message.delta` events through the real view store and the real transcript components
 *   into Ink on a null terminal (120×40, TTY), as fast as the event loop allows. Reports the wall
 *   time, the frames Ink rendered, and tokens/s: keeping up at 1,000 tokens/s means
 *   `tokensPerSec` well above 1,000 with a bounded frame count (~30 per second of streaming).
 * - `benchOpen(items)`: stores a thread of N history items in a temp SQLite store, then times
 *   loading it, building cells and rendering the first frame (what `--resume` does).
 *
 * Note: with `CI` set, Ink skips writing the live area (it still renders; `frames` still counts).
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { PassThrough, Writable } from "node:stream";
import { Box, render } from "ink";
import { useSyncExternalStore } from "react";
import type { Event } from "../src/protocol/events.js";
import type { ResponseItem } from "../src/protocol/items.js";
import { openStore } from "../src/store/index.js";
import { cellsFromHistory } from "../src/surfaces/tui/cells.js";
import { StatusLine } from "../src/surfaces/tui/status-line.js";
import { LiveArea, Scrollback } from "../src/surfaces/tui/transcript.js";
import { ViewStore } from "../src/surfaces/tui/view-store.js";

export interface BenchResult {
  ms: number;
  frames: number;
  /** Bytes Ink wrote to the (null) terminal. */
  bytes: number;
  /** Time Ink spent in its render passes. */
  renderMs: number;
}

function nullTerminal(): { stdout: NodeJS.WriteStream; stdin: NodeJS.ReadStream; bytes(): number } {
  let bytes = 0;
  const out = new Writable({
    write(chunk, _enc, cb) {
      bytes += chunk.length;
      cb();
    },
  }) as unknown as NodeJS.WriteStream;
  Object.assign(out, { columns: 120, rows: 40, isTTY: true });
  const stdin = new PassThrough() as unknown as NodeJS.ReadStream;
  Object.assign(stdin, { isTTY: false });
  return { stdout: out, stdin, bytes: () => bytes };
}

function View({ store }: { store: ViewStore }) {
  const snap = useSyncExternalStore(store.subscribe, store.getSnapshot);
  return (
    <>
      <Scrollback cells={snap.committed} />
      <Box flexDirection="column">
        <LiveArea snap={snap} />
        <StatusLine status={snap.status} pending={snap.pending.length} hint={null} />
      </Box>
    </>
  );
}

function mount(store: ViewStore) {
  const term = nullTerminal();
  let frames = 0;
  let renderMs = 0;
  const instance = render(<View store={store} />, {
    stdout: term.stdout,
    stdin: term.stdin,
    exitOnCtrlC: false,
    patchConsole: false,
    maxFps: 30,
    onRender: (m) => {
      frames++;
      renderMs += m.renderTime;
    },
  });
  return { instance, term, stats: () => ({ frames, renderMs }) };
}

/** A Markdown-looking token stream: prose, a list and a code block, repeating. */
export function syntheticTokens(n: number): string[] {
  const pattern = [
    ..."The quick agent reads the **repository** and plans the `change` carefully before it edits anything. ".split(
      /(?<= )/,
    ),
    "\n\n",
    ..."- first step\n- second step with `code`\n".split(/(?<= )/),
    "\n```ts\n",
    ..."const x = await run(task);\nconsole.log(x);\n".split(/(?<= )/),
    "```\n\n",
  ];
  return Array.from({ length: n }, (_, i) => pattern[i % pattern.length]);
}

const tick = () => new Promise<void>((r) => setImmediate(r));
const wait = (ms: number) => new Promise<void>((r) => setTimeout(r, ms));

/**
 * `ratePerSec` paces the stream (e.g. 1000 to replay a fast model in real time; then `ms` is about
 * tokens/rate and `frames` shows the ~30 fps throttle); without it tokens arrive as fast as possible.
 */
export async function benchRender(
  tokens: number,
  opts: { ratePerSec?: number } = {},
): Promise<BenchResult & { tokensPerSec: number }> {
  const store = new ViewStore({ id: "bench", model: "bench-model", mode: "default", cwd: "/bench" });
  const { instance, term, stats } = mount(store);
  const base = { thread_id: "bench", turn_id: "turn" };
  const feed = (e: Event) => store.handle(e);
  const words = syntheticTokens(tokens);
  const t0 = performance.now();
  feed({ type: "turn.started", ...base, mode: "default" });
  feed({ type: "item.started", ...base, item: { id: "m", type: "agent_message", text: "" } });
  for (let i = 0; i < words.length; i++) {
    feed({ type: "agent_message.delta", ...base, item_id: "m", delta: words[i] });
    if (opts.ratePerSec) {
      const due = t0 + ((i + 1) * 1000) / opts.ratePerSec;
      const ahead = due - performance.now();
      if (ahead > 4) await wait(ahead);
      else if (i % 16 === 15) await tick();
    } else if (i % 16 === 15) await tick();
  }
  feed({ type: "item.completed", ...base, item: { id: "m", type: "agent_message", text: words.join("") } });
  store.flushNow();
  await wait(40); // let Ink's throttle draw the last frame
  const ms = performance.now() - t0;
  instance.unmount();
  store.dispose();
  return { ms, ...stats(), bytes: term.bytes(), tokensPerSec: Math.round((tokens / ms) * 1000) };
}

/** A plausible thread: prompts, answers with Markdown, and commands with output. */
export function syntheticHistory(items: number): ResponseItem[] {
  const out: ResponseItem[] = [];
  for (let i = 0; out.length < items; i++) {
    const k = i % 4;
    if (k === 0)
      out.push({
        type: "message",
        role: "user",
        content: [{ type: "input_text", text: `Task ${i}: fix it` }],
      });
    else if (k === 1)
      out.push({
        type: "message",
        role: "assistant",
        content: [
          {
            type: "output_text",
            text: `Step ${i}:\n- read **files**\n- run \`tests\`\n\n\`\`\`sh\nnpm test\n\`\`\``,
          },
        ],
      });
    else if (k === 2)
      out.push({
        type: "function_call",
        name: "exec_command",
        arguments: JSON.stringify({ cmd: `ls -la dir${i}` }),
        call_id: `c${i}`,
      });
    else
      out.push({
        type: "function_call_output",
        call_id: `c${i - 1}`,
        output: `Chunk ID: x\nWall time: 0.01 seconds\nProcess exited with code 0\nOriginal token count: 9\nOutput:\n${"file.txt\n".repeat(12)}`,
      });
  }
  return out;
}

/** Opens (creates) the store at `path` and stores thread `id` with `items` synthetic history items. */
export function storeSyntheticThread(path: string, id: string, items: number): ReturnType<typeof openStore> {
  const db = openStore(path);
  const now = Date.now();
  db.createThread({
    id,
    session_id: id,
    parent_id: null,
    created_at: now,
    updated_at: now,
    cwd: "/bench",
    model: "bench-model",
    mode: "default",
    title: "",
    status: "idle",
    settings: {},
  });
  for (const item of syntheticHistory(items)) db.appendItem(id, null, item);
  return db;
}

export async function benchOpen(items: number): Promise<BenchResult & { cells: number }> {
  const dir = mkdtempSync(join(tmpdir(), "tandem-bench-open-"));
  const db = storeSyntheticThread(join(dir, "state.db"), "bench", items);

  const t0 = performance.now();
  const history = db.loadItems("bench").map((s) => s.item);
  const cells = cellsFromHistory(history, () => undefined);
  const store = new ViewStore({ id: "bench", model: "bench-model", mode: "default", cwd: "/bench" });
  store.addCells(cells);
  store.flushNow();
  const { instance, term, stats } = mount(store);
  await wait(0);
  const ms = performance.now() - t0;
  instance.unmount();
  store.dispose();
  db.close();
  rmSync(dir, { recursive: true, force: true });
  return { ms, ...stats(), bytes: term.bytes(), cells: cells.length };
}
