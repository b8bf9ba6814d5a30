/**
 * `tandem threads` (list) and `tandem export <id>` (JSONL of the stored history; the id may be a
 * unique prefix). Usage errors exit 2, an unknown thread 1.
 */

import { parseArgs } from "node:util";
import { openCatalog } from "../../runtime/catalog.js";
import { settledStatus } from "../../runtime/thread-status.js";
import { argError } from "../../util/cli-args.js";
import { threadTable } from "../shared/thread-table.js";

const USAGE = {
  threads: `Usage: tandem threads [--limit N] [--json]     list threads, most recently updated first

Options:
  --limit N                 how many threads to list (default 50)
  --json                    one JSON object per thread and line
  -c, --config key=value    override a config value (TOML value), repeatable
  -h, --help                show this help`,
  export: `Usage: tandem export THREAD_ID     print a thread's stored history as JSONL, one item per line

THREAD_ID may be any unique prefix of the id (or the short id the web page shows).

Options:
  -c, --config key=value    override a config value (TOML value), repeatable
  -h, --help                show this help`,
};

export async function runThreadsCommand(cmd: "threads" | "export", argv: string[]): Promise<number> {
  let parsed: ReturnType<typeof parseArgs>;
  try {
    parsed = parseArgs({
      args: argv,
      allowPositionals: true,
      options: {
        json: { type: "boolean" },
        limit: { type: "string" },
        help: { type: "boolean", short: "h" },
        config: { type: "string", short: "c", multiple: true },
      },
    });
  } catch (err) {
    process.stderr.write(`tandem ${cmd}: ${argError(err)}\n\n${USAGE[cmd]}\n`);
    return 2;
  }
  if (parsed.values.help) {
    process.stdout.write(`${USAGE[cmd]}\n`);
    return 0;
  }
  const limitText = parsed.values.limit as string | undefined;
  const limit = limitText === undefined ? 50 : Number(limitText);
  if (!Number.isInteger(limit) || limit < 1) {
    process.stderr.write(`tandem ${cmd}: --limit must be a positive integer, got "${limitText}"\n`);
    return 2;
  }
  const store = openCatalog({
    overrides: (parsed.values.config as string[] | undefined) ?? [],
    warn: (w) => process.stderr.write(`tandem ${cmd}: warning: ${w}\n`),
  });
  try {
    if (cmd === "threads") {
      // A thread whose last turn failed lists as failed (runtime/thread-status.ts).
      const threads = store
        .list({ limit })
        .map((t) => ({ ...t, status: settledStatus(t.status, store.lastTurn(t.id)?.status) }));
      if (parsed.values.json) {
        for (const t of threads) process.stdout.write(`${JSON.stringify(t)}\n`);
        return 0;
      }
      if (!threads.length) {
        process.stdout.write('no threads yet — start one with `tandem exec "…"` or try `tandem demo`\n');
        return 0;
      }
      const rows = threads.map((t) => ({
        ...t,
        pending: store.pendingCount(t.id),
        title: t.title || firstUserText(store.history(t.id).map((i) => i.item)) || "",
      }));
      // The header row only on a terminal: piped, each line starts with a thread's id (scripts).
      const lines = threadTable(rows, { ids: "full", titleWidth: 60 });
      for (const l of process.stdout.isTTY ? lines : lines.slice(1)) process.stdout.write(`${l}\n`);
      return 0;
    }
    if (parsed.positionals.length !== 1) {
      process.stderr.write(
        `tandem export: one thread id is required (see \`tandem threads\`)\n\n${USAGE.export}\n`,
      );
      return 2;
    }
    const ref = store.resolve(parsed.positionals[0]);
    if (!ref.ok) {
      const hint = ref.reason === "not_found" ? "; run `tandem threads` to list threads" : "";
      process.stderr.write(`tandem export: ${ref.message}${hint}\n`);
      return ref.reason === "not_found" ? 1 : 2;
    }
    for (const s of store.history(ref.id)) process.stdout.write(`${JSON.stringify(s.item)}\n`);
    return 0;
  } finally {
    store.close();
  }
}

function firstUserText(
  items: Array<{ type: string; role?: string; content?: Array<{ type: string; text?: string }> }>,
): string | undefined {
  for (const it of items) {
    if (it.type !== "message" || it.role !== "user") continue;
    const text = it.content?.map((c) => c.text ?? "").join("") ?? "";
    if (text.startsWith("<environment_context>") || text.startsWith("# AGENTS.md")) continue;
    return text.replace(/\s+/g, " ");
  }
  return undefined;
}
