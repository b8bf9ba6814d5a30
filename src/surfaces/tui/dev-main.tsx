/**
 * Development entry: `npx tsx src/surfaces/tui/dev-main.tsx [--demo] [tandem flags…]` runs the
 * terminal UI from sources (the CLI wires `tandem` and `tandem demo --tui` to `runTui`).
 */
import { runTui } from "./index.js";

const argv = process.argv.slice(2);
const demo = argv.includes("--demo");
runTui(
  argv.filter((a) => a !== "--demo"),
  { demo },
).then(
  (code) => {
    process.exitCode = code;
  },
  (err) => {
    process.stderr.write(`tandem: ${(err as Error)?.stack ?? err}\n`);
    process.exitCode = 1;
  },
);
