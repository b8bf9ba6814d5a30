/**
 * Crash-test child: `node --import tsx append-child.ts <db> <thread> <count>` appends items
 * to an existing thread through the real store and, after each append returns, writes the
 * committed seq as one line to stdout. `count` 0 means until killed. Exits quietly when the
 * parent stops reading (EPIPE).
 */
import { writeSync } from "node:fs";
import { openStore } from "../index.js";

/** writeSync to a pipe the parent drains slowly can fail with EAGAIN (non-blocking): retry. */
function printLine(line: string): void {
  let buf = Buffer.from(line);
  while (buf.length > 0) {
    try {
      buf = buf.subarray(writeSync(1, buf));
    } catch (e) {
      if ((e as { code?: string }).code !== "EAGAIN") throw e;
      Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, 1);
    }
  }
}

const [dbPath, threadId, countArg] = process.argv.slice(2);
const count = Number(countArg ?? "0");
const store = openStore(dbPath);
const filler = "x".repeat(512); // big enough that an item spans real page writes
try {
  for (let i = 1; count === 0 || i <= count; i++) {
    const seq = store.appendItem(threadId, "turn_child", {
      type: "function_call_output",
      call_id: `call_${process.pid}_${i}`,
      output: `${i} ${filler}`,
    });
    printLine(`${seq}\n`); // synchronous: a printed seq was committed before the print
  }
} catch (e) {
  if ((e as { code?: string }).code !== "EPIPE") throw e;
} finally {
  store.close();
}
