/**
 * Red team: a review's findings are model text, and `tandem review` prints them to the user's
 * terminal. Titles, bodies, file paths and the overall verdict carrying OSC 52 (write the
 * clipboard), OSC 2 (window title), CSI screen sequences and a C1 OSC must reach stdout as
 * symbols, never as bytes the terminal acts on — and the same for the raw answer printed to
 * stderr when it cannot be read, and the TUI's findings cell. (--json stays byte-exact.)
 */
import { mkdtempSync, rmSync } from "node:fs";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { makeCell, reviewCell } from "../../src/surfaces/tui/cells.js";
import { renderCell } from "../../src/surfaces/tui/render-cell.js";
import { type MockProcess, runTandem, startMockProcess } from "../helpers/cli.js";
import { tempDir } from "../helpers/index.js";

const EVIL = "\x1b]52;c;SGVsbG8=\x07\x1b]2;pwned\x07\x1b[2J\u009d2;c1\u0007\u202e";
const ANSWER = (cwd: string) => ({
  findings: [
    {
      title: `Title${EVIL}`,
      body: `Body${EVIL}\nsecond line${EVIL}`,
      priority: 1,
      confidence_score: 0.5,
      code_location: { absolute_file_path: join(cwd, `f${EVIL}.py`), line_range: { start: 1, end: 2 } },
    },
  ],
  overall_correctness: `patch is incorrect${EVIL}`,
  overall_explanation: `why${EVIL}`,
});
const RAW = /[\x00-\x08\x0b-\x1f\x7f-\x9f\u202a-\u202e]/;

describe("red team: tandem review output is neutralised for the terminal", () => {
  let mock: MockProcess | undefined;
  afterEach(async () => {
    await mock?.stop();
    mock = undefined;
  });

  it("findings (stdout) and an unreadable answer (stderr) carry no control sequences", async () => {
    const cwd = mkdtempSync(join("/var/tmp", "tandem-review-term-"));
    const cwd2 = mkdtempSync(join("/tmp", "tandem-review-term-"));
    try {
      mock = await startMockProcess({
        steps: [
          { output: [{ type: "message", text: JSON.stringify(ANSWER(cwd)) }] },
          { output: [{ type: "message", text: `not json${EVIL}` }] },
        ],
      });
      const env = { TANDEM_HOME: tempDir(), OPENAI_API_KEY: "k", OPENAI_BASE_URL: mock.url };
      const ok = await runTandem(["review", "-C", cwd], { env });
      expect(ok.code, ok.stderr).toBe(0);
      expect(ok.stdout).toContain("[P1] Title");
      expect(ok.stdout).toContain("␛]52;c;SGVsbG8=");
      expect(ok.stdout).not.toMatch(RAW);
      const bad = await runTandem(["review", "-C", cwd2], { env });
      expect(bad.code).toBe(1);
      expect(bad.stderr).toContain("not json");
      expect(bad.stderr).not.toMatch(RAW);
    } finally {
      rmSync(cwd, { recursive: true, force: true });
      rmSync(cwd2, { recursive: true, force: true });
    }
  });

  it("the TUI's findings cell (read or unreadable) writes no control sequence, in colour too", () => {
    const cwd = "/var/tmp/ws";
    for (const text of [JSON.stringify(ANSWER(cwd)), `not json${EVIL}`]) {
      const out = renderCell(makeCell(reviewCell(text, cwd)), { width: 100, color: true });
      // Colour is the renderer's own SGR; nothing else of ESC may remain.
      expect(out.replace(/\x1b\[[0-9;]*m/g, "")).not.toMatch(RAW);
      expect(out).toContain("␛]52;c;SGVsbG8=");
    }
  });
});
