/**
 * A failed apply_patch says why (README "Use it"): `tandem exec` human output and `exec --json`
 * (the `file_change` item keeps Codex's shape and adds `error.message`), and the TUI's file cell,
 * not only the export. Real processes: `./bin/tandem` (run `npm run build` first) against
 * `tandem mock-model`.
 */
import { afterEach, describe, expect, it } from "vitest";
import { renderCell } from "../../src/surfaces/tui/render-cell.js";
import { serverEnv } from "../helpers/app-server.js";
import { processStdio } from "../helpers/app-server-client.js";
import { jsonLines, type MockProcess, runTandem, startMockProcess } from "../helpers/cli.js";
import { tempDir } from "../helpers/index.js";

const BAD_PATCH = "*** Begin Patch\n*** Update File: missing.txt\n@@\n-old\n+new\n*** End Patch";
const script = {
  steps: [
    { output: [{ type: "custom_tool_call", name: "apply_patch", call_id: "call_p", input: BAD_PATCH }] },
    { output: [{ type: "message", text: "The patch failed." }] },
  ],
};

describe("a failed apply_patch says why", () => {
  let mock: MockProcess | undefined;
  afterEach(async () => {
    await mock?.stop();
    mock = undefined;
  });

  async function run(json: boolean) {
    mock = await startMockProcess(script);
    const env = { TANDEM_HOME: tempDir("tandem-home-"), OPENAI_API_KEY: "k", OPENAI_BASE_URL: mock.url };
    return runTandem(["exec", ...(json ? ["--json"] : []), "edit missing.txt"], { env });
  }

  // Fails if exec's human output drops the failure text of a file_change item.
  it("exec prints the reason", async () => {
    const r = await run(false);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stderr).toMatch(/apply_patch failed: .*missing\.txt/);
  });

  // Fails if the JSONL file_change item has no error message (or loses Codex's fields).
  it("exec --json carries error.message on the failed file_change", async () => {
    const r = await run(true);
    expect(r.code, r.stderr).toBe(0);
    const item = jsonLines(r.stdout).find(
      (l) => l.type === "item.completed" && l.item.type === "file_change",
    )?.item;
    expect(item).toMatchObject({ type: "file_change", changes: [], status: "failed" });
    expect(item.error.message).toContain("missing.txt");
  });

  // Fails if the TUI's file cell shows "Failed to edit 0 files" without the reason.
  it("the TUI file cell shows the reason", () => {
    const rows = renderCell(
      {
        kind: "files",
        key: "f",
        status: "failed",
        changes: [],
        error: "apply_patch failed: missing.txt does not exist",
      },
      { width: 80, color: false },
    );
    expect(rows).toContain("Patch failed: no files were changed");
    expect(rows).toContain("missing.txt does not exist");
  });

  // Fails if the app-server completes the failed fileChange item without telling the client why
  // (the reason goes out as item/fileChange/outputDelta, a Codex notification, before completion).
  it("app-server sends the reason as item/fileChange/outputDelta before the item completes", async () => {
    mock = await startMockProcess(script);
    const s = processStdio(serverEnv(mock));
    try {
      await s.client.request("initialize", { clientInfo: { name: "t", title: null, version: "1" } });
      s.client.notify("initialized");
      const { thread } = await s.client.request("thread/start", { cwd: tempDir("tandem-cwd-") });
      await s.client.request("turn/start", {
        threadId: thread.id,
        input: [{ type: "text", text: "edit missing.txt", text_elements: [] }],
      });
      const done = await s.client.notification(
        "item/completed",
        (p) => p.item?.type === "fileChange" && p.threadId === thread.id,
      );
      expect(done.item.status).toBe("failed");
      const deltas = s.client.notifications.filter((n) => n.method === "item/fileChange/outputDelta");
      expect(deltas.map((n) => n.params.delta).join("")).toContain("missing.txt");
      const completedAt = s.client.notifications.findIndex(
        (n) => n.method === "item/completed" && n.params.item?.type === "fileChange",
      );
      expect(s.client.notifications.indexOf(deltas[0])).toBeLessThan(completedAt);
      await s.client.notification("turn/completed", (p) => p.threadId === thread.id);
      expect(s.client.violations).toEqual([]);
    } finally {
      await s.close();
    }
  });
});
