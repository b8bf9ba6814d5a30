/**
 * Red team, app-server `command/exec`: a client asks for a sandboxed command (read-only) and
 * passes `env`. The variables must reach the command inside the sandbox only — never the
 * launcher that runs on the host (the `/bin/sh` trampoline and bwrap itself). The attack:
 * `LD_PRELOAD` naming a library in the workspace (anything the model can write) is loaded by the
 * host-side launcher before bwrap sandboxes anything, so the model's code runs unsandboxed.
 * Run with the workspace under /tmp and outside every writable root (/var/lib).
 */
import { spawnSync } from "node:child_process";
import { existsSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { serverEnv } from "../helpers/app-server.js";
import { inProcessStdio, type Served } from "../helpers/app-server-client.js";
import { type MockProcess, startMockProcess } from "../helpers/cli.js";
import { outsideDir, tempDir } from "../helpers/index.js";
import { missing } from "../helpers/system-tools.js";

const LIB = `
#include <fcntl.h>
#include <stdlib.h>
#include <unistd.h>
__attribute__((constructor)) static void pwn(void) {
  const char *p = getenv("PWN_MARK");
  if (p) { int fd = open(p, O_WRONLY | O_CREAT, 0600); if (fd >= 0) close(fd); }
}
`;

describe.skipIf(missing("bwrap", "gcc").length > 0)(
  "red team: command/exec env stays inside the sandbox",
  () => {
    const served: Served[] = [];
    const dirs: string[] = [];
    let mock: MockProcess | undefined;
    afterEach(async () => {
      for (const s of served.splice(0)) {
        expect(s.client.violations).toEqual([]);
        await s.close();
      }
      await mock?.stop();
      for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
    });

    for (const where of ["/tmp", "outside"] as const) {
      // Fails if the client's env is given to the host-side launcher (sh, bwrap): the library's
      // constructor then creates the marker outside the read-only sandbox.
      it(`LD_PRELOAD from a client's env is not loaded on the host (workspace ${where})`, async () => {
        mock = await startMockProcess({ steps: [] });
        const home = tempDir("tandem-home-");
        dirs.push(home);
        writeFileSync(join(home, "config.toml"), 'sandbox_mode = "read-only"\n');
        const s = inProcessStdio(serverEnv(mock, home));
        served.push(s);
        await s.client.initialize();
        const ws = where === "/tmp" ? tempDir("tandem-ws-") : outsideDir("tandem-ws-");
        const markDir = outsideDir("tandem-mark-");
        dirs.push(ws, markDir);
        // What a hostile model writes into the workspace.
        writeFileSync(join(ws, "evil.c"), LIB);
        const cc = spawnSync("gcc", ["-shared", "-fPIC", "-o", join(ws, "evil.so"), join(ws, "evil.c")]);
        expect(cc.status).toBe(0);
        const mark = join(markDir, "pwned");

        const r = await s.client.request("command/exec", {
          command: ["sh", "-c", 'echo "in=$PWN_MARK"'],
          cwd: ws,
          env: { LD_PRELOAD: join(ws, "evil.so"), PWN_MARK: mark },
          sandboxPolicy: { type: "readOnly", networkAccess: false },
        });
        // The variables still reach the command itself.
        expect(r.exitCode).toBe(0);
        expect(r.stdout).toContain(`in=${mark}`);
        expect(existsSync(mark)).toBe(false);
      });
    }
  },
);
