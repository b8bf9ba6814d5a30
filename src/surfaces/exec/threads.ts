/** `tandem threads` (list) and `tandem export <id>` (JSONL of the stored history). */
import { join } from "node:path";
import { parseArgs } from "node:util";
import { loadConfig } from "../../config/load.js";
import { openStore } from "../../store/index.js";

export async function runThreadsCommand(cmd: "threads" | "export", argv: string[]): Promise<number> {
  let parsed: ReturnType<typeof parseArgs>;
  try {
    parsed = parseArgs({
      args: argv,
      allowPositionals: true,
      options: {
        json: { type: "boolean" },
        limit: { type: "string" },
        config: { type: "string", short: "c", multiple: true },
        model: { type: "string", short: "m" },
      },
    });
  } catch (err) {
    process.stderr.write(`tandem ${cmd}: ${(err as Error).message}\n`);
    return 2;
  }
  const { home } = loadConfig({ overrides: (parsed.values.config as string[] | undefined) ?? [] });
  const store = openStore(join(home, "state.db"));
  try {
    if (cmd === "threads") {
      const limit = parsed.values.limit ? Number(parsed.values.limit) : 50;
      const threads = store.listThreads({ limit });
      if (parsed.values.json) {
        for (const t of threads) process.stdout.write(`${JSON.stringify(t)}\n`);
        return 0;
      }
      if (!threads.length) {
        process.stdout.write('no threads yet — start one with `tandem exec "…"` or try `tandem demo`\n');
        return 0;
      }
      for (const t of threads) {
        const pending = store.pendingQuestions(t.id).length;
        const when = new Date(t.updated_at).toISOString().replace("T", " ").slice(0, 19);
        const tokens = t.usage ? `${t.usage.total_tokens} tokens  ` : "";
        const title = t.title || firstUserText(store.loadItems(t.id).map((i) => i.item)) || "";
        process.stdout.write(
          `${t.id}  ${when}  ${t.status.padEnd(15)} ${pending ? `${pending} pending question(s)  ` : ""}${tokens}${t.cwd}  ${title.slice(0, 60)}\n`,
        );
      }
      return 0;
    }
    const id = parsed.positionals[0];
    if (!id) {
      process.stderr.write("tandem export: a thread id is required (see `tandem threads`)\n");
      return 2;
    }
    if (!store.getThread(id)) {
      process.stderr.write(`tandem export: no thread with id ${id}\n`);
      return 1;
    }
    for (const s of store.loadItems(id)) process.stdout.write(`${JSON.stringify(s.item)}\n`);
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
