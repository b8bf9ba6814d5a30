/**
 * Vitest reporter for the skip policy (test/helpers/system-tools.ts): after the run it prints one line
 * with the number of skipped tests and, for each missing system tool, how to install it. Under
 * TANDEM_REQUIRE_TOOLS=1 any skipped test fails the run (exit code 1), naming the tests.
 */
import type { Reporter, TestModule } from "vitest/node";
import { missingSummary, REQUIRE_TOOLS } from "./system-tools.js";

export default class SkipReporter implements Reporter {
  onTestRunEnd(modules: ReadonlyArray<TestModule>): void {
    const skipped: string[] = [];
    for (const m of modules)
      for (const t of m.children.allTests())
        if (t.result().state === "skipped")
          skipped.push(`${m.moduleId.split("/").slice(-2).join("/")} › ${t.fullName}`);
    const tools = missingSummary();
    if (skipped.length === 0 && tools.length === 0) return;
    const why = tools.length ? `: ${tools.join("; ")}` : "";
    process.stdout.write(`\nSkipped ${skipped.length} test${skipped.length === 1 ? "" : "s"}${why}\n`);
    if (REQUIRE_TOOLS && skipped.length > 0) {
      process.stdout.write(
        `TANDEM_REQUIRE_TOOLS=1: no test may be skipped; skipped:\n${skipped.map((s) => `  ${s}`).join("\n")}\n`,
      );
      process.exitCode = 1;
    }
  }
}
