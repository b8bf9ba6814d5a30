/**
 * The `sandbox` argument of `tandem mcp-server`'s `tandem` tool (README "Tandem as an MCP server")
 * is enforced by the OS: a real host (the MCP SDK's client) runs `./bin/tandem mcp-server`, the
 * scripted model runs `touch` in the thread's workspace, and the file on disk says what happened.
 * Needs bubblewrap (the sandbox); skipped with that reason without it.
 */
import { existsSync } from "node:fs";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { tempDir } from "../helpers/index.js";
import { call, closeHosts, execCall, message, outputOf, startHost } from "../helpers/mcp-host.js";
import { missing } from "../helpers/system-tools.js";

afterEach(closeHosts);

describe.skipIf(missing("bwrap").length > 0)("tandem mcp-server: the tandem tool's sandbox", () => {
  // Fails if the `sandbox` argument is ignored (the default, workspace-write, would let the first
  // touch write), if tandem_reply does not keep it, or if a command could not write at all (the
  // workspace-write control).
  it('sandbox "read-only" cannot write in its workspace, also after tandem_reply; workspace-write can', async () => {
    const h = await startHost({
      steps: [
        execCall("ro", "touch blocked.txt"),
        message("read-only done"),
        execCall("again", "touch blocked-again.txt"),
        message("still read-only"),
        execCall("rw", "touch allowed.txt"),
        message("workspace-write done"),
      ],
    });
    const work = tempDir("tandem-mcp-sandbox-");
    const ro = await call(h, "tandem", {
      prompt: "write a file",
      cwd: work,
      sandbox: "read-only",
      approval_policy: "never",
    });
    expect(ro.structuredContent).toMatchObject({ status: "completed", message: "read-only done" });
    expect(existsSync(join(work, "blocked.txt"))).toBe(false);
    expect(outputOf(h, 2, "ro")).toMatch(/read-only file system/i);

    const again = await call(h, "tandem_reply", {
      threadId: ro.structuredContent.threadId,
      prompt: "try again",
    });
    expect(again.structuredContent.status).toBe("completed");
    expect(existsSync(join(work, "blocked-again.txt"))).toBe(false);

    const rw = await call(h, "tandem", {
      prompt: "write a file",
      cwd: work,
      sandbox: "workspace-write",
      approval_policy: "never",
    });
    expect(rw.structuredContent.status).toBe("completed");
    expect(existsSync(join(work, "allowed.txt"))).toBe(true);
  });
});
