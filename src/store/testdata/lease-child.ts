/**
 * Lease-test child: `node --import tsx lease-child.ts <url> <thread> <ttlMs>` opens the
 * PostgreSQL store as node "child", takes the thread's lease, prints `held`, then for each
 * stdin line appends one item and prints `ok <seq>` or `error <code> <message>`.
 */
import { hostname } from "node:os";
import { createInterface } from "node:readline";
import { openStore, StoreError } from "../index.js";

const [url, threadId, ttl] = process.argv.slice(2);
const store = openStore(url, { node: "child", leaseTtlMs: Number(ttl) });
const r = store.acquireLease(threadId, {
  pid: process.pid,
  host: hostname(),
  since: Date.now(),
  token: "child",
});
process.stdout.write(r.ok ? "held\n" : "refused\n");
createInterface({ input: process.stdin }).on("line", (line) => {
  try {
    const seq = store.appendItem(threadId, null, {
      type: "message",
      role: "user",
      content: [{ type: "input_text", text: line }],
    });
    process.stdout.write(`ok ${seq}\n`);
  } catch (e) {
    process.stdout.write(StoreError.isInstance(e) ? `error ${e.code} ${e.message}\n` : `error other ${e}\n`);
  }
});
