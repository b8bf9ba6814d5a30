/**
 * Security regression suite for the bubblewrap sandbox (README "Sandbox and approvals"; requirements
 * A4). Each test drives the real loop: the scripted model issues the attack as an
 * exec_command call, Tandem runs it as root under the workspace-write (or read-only)
 * sandbox, and the test checks on the host that nothing landed outside, nothing reached a
 * socket outside and Tandem's own state is intact, and that legitimate work still runs.
 * Workspaces are made both under /tmp and outside it (/var/lib), since /tmp is a writable
 * root and changes which binds apply.
 */
import { spawnSync } from "node:child_process";
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync } from "node:fs";
import { connect, createServer, type Server } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { openStore } from "../../src/store/index.js";
import { homeFiles } from "../helpers/checkpoints.js";
import { type Harness, harness, tempDir } from "../helpers/index.js";
import { missing } from "../helpers/system-tools.js";
import { waitUntil } from "../helpers/wait.js";

const hasBwrap = missing("bwrap").length === 0;

const call = (id: string, cmd: string, extra: Record<string, unknown> = {}) => ({
  type: "function_call" as const,
  name: "exec_command",
  call_id: id,
  arguments: { cmd, ...extra },
});
const done = { output: [{ type: "message" as const, text: "done" }] };

function outputOf(h: Harness, callId: string): string {
  for (const body of h.model.requests as any[]) {
    const o = body.input.find((i: any) => i.type === "function_call_output" && i.call_id === callId);
    if (o) return o.output;
  }
  throw new Error(`no output for ${callId}`);
}

/** Directories removed after each test (those outside the OS temp dir). */
const cleanup: string[] = [];
/** A fresh directory outside /tmp and outside every writable root. */
function outsideDir(prefix = "/var/lib/tandem-test-"): string {
  const d = mkdtempSync(prefix);
  cleanup.push(d);
  return d;
}

const places = [
  ["under /tmp", () => tempDir("tandem-ws-")],
  ["outside /tmp", () => outsideDir()],
] as const;

type Call = ReturnType<typeof call>;

describe.skipIf(!hasBwrap)("sandbox escapes (bubblewrap, run as root)", () => {
  let h: Harness | undefined;
  const servers: Server[] = [];
  afterEach(async () => {
    await h?.close();
    h = undefined;
    for (const s of servers.splice(0)) s.close();
    for (const d of cleanup.splice(0)) rmSync(d, { recursive: true, force: true });
  });

  /**
   * Runs one model step of `calls` in a thread on `cwd` (closing the previous harness);
   * returns when the turn is over.
   */
  async function attack(
    cwd: string,
    calls: Call[],
    opts: { overrides?: string[]; writableRoots?: string[]; home?: string } = {},
  ): Promise<Harness> {
    await h?.close();
    h = await harness({
      cwd,
      home: opts.home,
      script: { steps: [{ output: calls }, done] },
      overrides: opts.overrides,
    });
    const thread = h.runtime.threads.start({ cwd, writableRoots: opts.writableRoots });
    expect((await thread.startTurn("go").done).status).toBe("completed");
    return h;
  }

  describe.each(places)("workspace %s", (_label, makeWorkspace) => {
    // Fails if the resolved `workdir` is bound read-write (or treated as a writable root)
    // instead of being only the sandbox's --chdir.
    it("a workdir outside the writable roots stays read-only", async () => {
      const ws = makeWorkspace();
      const victim = outsideDir("/srv/tandem-test-");
      mkdirSync(join(ws, "sub"));
      const h = await attack(ws, [
        call("a1", "echo pwned > f.txt; echo rc=$?", { workdir: victim }),
        call("a2", "echo ok > f.txt && pwd", { workdir: "sub" }),
      ]);
      expect(outputOf(h, "a1")).toMatch(/Read-only file system/);
      expect(outputOf(h, "a1")).toMatch(/rc=1/);
      expect(readdirSync(victim)).toEqual([]);
      // Legitimate: a workdir inside the workspace is writable and is the command's cwd.
      expect(readFileSync(join(ws, "sub", "f.txt"), "utf8")).toBe("ok\n");
      expect(outputOf(h, "a2")).toContain(join(ws, "sub"));
    });

    // Fails if bwrap keeps root's capabilities (no user namespace / no --cap-drop ALL): the
    // remount or the unmount of the .git bind then succeeds and the writes land on the host;
    // or if capabilities remain at all (--cap-drop ALL), or if nested user namespaces are
    // allowed (no --disable-userns).
    it("root inside the sandbox cannot remount, bind or unshare its way out", async () => {
      const ws = makeWorkspace();
      const outside = outsideDir();
      const breakout = [
        "mount -o remount,rw / 2>&1",
        `mount -o remount,rw ${outside} 2>&1`,
        `mount --bind ${ws} ${outside} 2>&1`,
        "unshare -rm sh -c 'mount -o remount,rw /' 2>&1",
        "unshare -U true 2>&1; echo userns=$?",
        "grep -E '^Cap(Eff|Prm|Bnd)' /proc/self/status",
        // With CAP_SYS_ADMIN in its user namespace, root could lift the read-only .git bind.
        "umount -l .git 2>&1; echo '[core] fsmonitor = evil' >> .git/config; echo git=$?",
        `echo pwned > ${outside}/owned; echo rc=$?`,
      ].join("; ");
      expect(spawnSync("git", ["init", "-q"], { cwd: ws }).status).toBe(0);
      const config = readFileSync(join(ws, ".git/config"), "utf8");
      for (const mode of ["workspace-write", "read-only"]) {
        const h = await attack(ws, [call("c1", breakout)], { overrides: [`sandbox_mode="${mode}"`] });
        expect(outputOf(h, "c1")).toMatch(/rc=1/);
        // No nested user namespace either (kernel attack surface; --disable-userns).
        expect(outputOf(h, "c1")).toMatch(/userns=1/);
        // No capability left at all, even in the sandbox's own user namespace.
        for (const set of ["Eff", "Prm", "Bnd"])
          expect(outputOf(h, "c1")).toMatch(new RegExp(`Cap${set}:\\s+0{16}\\b`));
        expect(outputOf(h, "c1")).toMatch(/git=1/);
        expect(readFileSync(join(ws, ".git/config"), "utf8")).toBe(config);
        expect(readdirSync(outside)).toEqual([]);
      }
      // Legitimate work still runs, and what it creates belongs to the caller on the host.
      const legit = [
        // .git itself is read-only (protected), so git reads; commits need an escalation.
        "git status --porcelain >/dev/null && git diff --stat && echo GIT_OK",
        `node -e "require('child_process').execSync('echo sub > node.txt'); console.log('NODE_OK')"`,
        "printf 'b\\na\\nb\\n' | sort | uniq | tr -d '\\n'; echo",
        "(cd sub2 2>/dev/null || mkdir sub2 && cd sub2 && echo nested > n.txt) && echo SUBSHELL_OK",
      ];
      const h = await attack(
        ws,
        legit.map((cmd, i) => call(`l${i}`, cmd)),
      );
      expect(outputOf(h, "l0")).toContain("GIT_OK");
      expect(outputOf(h, "l1")).toContain("NODE_OK");
      expect(outputOf(h, "l2")).toContain("ab");
      expect(outputOf(h, "l3")).toContain("SUBSHELL_OK");
      for (const f of ["node.txt", "sub2/n.txt"]) {
        const st = statSync(join(ws, f));
        expect([st.uid, st.gid]).toEqual([process.getuid?.(), process.getgid?.()]);
      }
    });

    // Fails if the seccomp filter is missing or lets socket(AF_UNIX) through: the host
    // servers then receive the message (a path socket inside a writable root, one outside,
    // and an abstract one; with network access on too).
    it("unix sockets on the host are unreachable; socketpair and pipes still work", async () => {
      const ws = makeWorkspace();
      const received: string[] = [];
      const listen = (path: string) =>
        new Promise<void>((resolve) => {
          const s = createServer((c) => c.on("data", (d) => received.push(`${path}: ${d}`)));
          servers.push(s);
          s.listen(path, resolve);
        });
      const inRoot = join(tempDir("tandem-sock-"), "s.sock");
      const outside = join(outsideDir(), "s.sock");
      const abstract = `\0tandem-test-${process.pid}-${Date.now()}`;
      for (const p of [inRoot, outside, abstract]) await listen(p);
      const client = (p: string) =>
        `node -e 'const c=require("net").connect(${JSON.stringify(p)},()=>{c.end("PWNED");console.log("CONNECTED")});c.on("error",e=>console.log("ERR",e.code))'`;
      const x32Socket =
        "python3 -c 'import ctypes,os; r=ctypes.CDLL(None,use_errno=True).syscall(0x40000000|41,1,1,0); print(\"x32\", r, os.strerror(ctypes.get_errno()))'";
      const legit = [
        "python3 -c 'import socket; a,b=socket.socketpair(); a.sendall(b\"pair\"); print(b.recv(4).decode())'",
        "seq 3 | sort -r | head -1",
      ];
      for (const net of [false, true]) {
        const calls = [
          ...[inRoot, outside, abstract].map((p, i) => call(`s${i}`, client(p))),
          // Under a PTY the filter reaches bwrap through the /bin/sh fd-3 trampoline.
          call("s3", client(outside), { tty: true }),
          call("x32", x32Socket),
          ...legit.map((cmd, i) => call(`l${i}`, cmd)),
        ];
        const h = await attack(ws, calls, {
          overrides: [`sandbox_workspace_write.network_access=${net}`],
        });
        for (const id of ["s0", "s1", "s2", "s3"]) {
          expect(outputOf(h, id)).not.toContain("CONNECTED");
          expect(outputOf(h, id)).toMatch(/ERR (EPERM|EACCES)/);
        }
        // EPERM from the filter (a kernel without x32 would say ENOSYS, one with it an fd).
        expect(outputOf(h, "x32")).toContain("x32 -1 Operation not permitted");
        expect(outputOf(h, "l0")).toContain("pair");
        expect(outputOf(h, "l1")).toContain("3");
      }
      // A barrier, not a sleep: once a probe sent from the host now has reached every listener,
      // anything a sandboxed client had sent earlier would have been read before it.
      const probes = [inRoot, outside, abstract].map(
        (p) =>
          new Promise<void>((resolve, reject) => {
            const c = connect(p, () => c.end("PROBE"));
            c.on("close", () => resolve());
            c.on("error", reject);
          }),
      );
      await Promise.all(probes);
      await waitUntil(
        () => received.filter((r) => r.endsWith(": PROBE")).length === 3,
        "the host's probe to reach every listener",
      );
      expect(received.filter((r) => !r.endsWith(": PROBE"))).toEqual([]);
    });

    // Fails if $TANDEM_HOME and the store are not ro-bound after the writable roots: with
    // the home under /tmp (a writable root) the command could then rewrite state.db. Hidden by
    // default (sandbox-home.test.ts), read-only with readable_home: never writable either way.
    it.each([false, true])(
      "Tandem's home and database are not writable from the sandbox (readable_home = %s)",
      async (readable) => {
        const ws = makeWorkspace();
        const home = tempDir("tandem-home-"); // under /tmp: inside a writable root, as in CI
        const cmd = [
          // The marker is assembled by the shell: the command text itself is stored in the db.
          `printf TANDEM_%s PWNED >> ${home}/state.db; echo rc1=$?`,
          `printf TANDEM_%s PWNED >> ${home}/state.db-wal; echo rc2=$?`,
          `echo x > ${home}/new-file; echo rc3=$?`,
          `rm ${home}/state.db; echo rc4=$?`,
          `mv ${home} ${home}.moved; echo rc5=$?`,
        ].join("; ");
        const overrides = [`sandbox_workspace_write.readable_home=${readable}`];
        const h = await attack(ws, [call("h1", cmd)], { home, overrides });
        const threadId = h.runtime.threads.list()[0].id;
        expect(outputOf(h, "h1")).toMatch(/rc1=1[\s\S]*rc2=1[\s\S]*rc3=1[\s\S]*rc4=1[\s\S]*rc5=1/);
        await h.close();
        expect(existsSync(join(home, "new-file"))).toBe(false);
        expect(existsSync(`${home}.moved`)).toBe(false);
        // Every file under the home, the checkpoint stores included.
        for (const f of homeFiles(home))
          expect(readFileSync(join(home, f)).includes("TANDEM_PWNED"), f).toBe(false);
        // Still a working store with the turn in it.
        const store = openStore(join(home, "state.db"));
        expect(store.loadItems(threadId).length).toBeGreaterThan(0);
        store.close();
      },
    );
  });

  describe.each([
    ["/tmp", () => mkdtempSync("/tmp/tandem-git-")],
    ["$TMPDIR", () => mkdtempSync(join(tmpdir(), "tandem-git-"))],
    ["/dev/shm", () => mkdtempSync("/dev/shm/tandem-git-")],
    ["an --add-dir parent", () => mkdtempSync(join(outsideDir(), "ws-"))],
  ] as const)("a workspace under %s", (label, makeWorkspace) => {
    // Fails if a writable bind of a parent (/tmp, $TMPDIR, /dev/shm, an added dir) comes
    // after the workspace's read-only `.git` bind and hides it.
    it("keeps .git read-only, also a worktree's .git pointer file and what it points to", async () => {
      const ws = makeWorkspace();
      const wt = `${ws}-wt`;
      cleanup.push(ws, wt);
      const git = (args: string, cwd = ws) =>
        expect(spawnSync("sh", ["-c", args], { cwd, encoding: "utf8" }).status).toBe(0);
      git("git init -q && git -c user.email=t@t -c user.name=t commit -q --allow-empty -m init");
      git(`git worktree add -q ${wt}`);
      const gitdir = join(ws, ".git/worktrees", wt.split("/").pop()!);
      const config = readFileSync(join(ws, ".git/config"), "utf8");
      const pointer = readFileSync(join(wt, ".git"), "utf8");
      const head = readFileSync(join(gitdir, "HEAD"), "utf8");
      const roots = label === "an --add-dir parent" ? [join(ws, "..")] : undefined;
      const inRepo = [
        "echo '[core] fsmonitor = evil' >> .git/config; echo rc1=$?",
        "rm -rf .git/hooks; echo rc2=$?",
        "touch .git/hooks/pre-commit; echo rc3=$?",
        "echo ok > legit.txt && echo LEGIT_OK",
      ].join("; ");
      let h = await attack(ws, [call("g1", inRepo)], { writableRoots: roots });
      expect(outputOf(h, "g1")).toMatch(/rc1=1[\s\S]*rc2=1[\s\S]*rc3=1[\s\S]*LEGIT_OK/);
      // From the worktree: its pointer file, its gitdir and the main repo's (common) .git.
      const inWorktree = [
        "echo 'gitdir: /elsewhere' > .git; echo rc1=$?",
        `echo evil > ${gitdir}/HEAD; echo rc2=$?`,
        `echo '[core] fsmonitor = evil' >> ${ws}/.git/config; echo rc3=$?`,
        "echo ok > legit.txt && echo LEGIT_OK",
      ].join("; ");
      h = await attack(wt, [call("g2", inWorktree)], { writableRoots: roots });
      expect(outputOf(h, "g2")).toMatch(/rc1=1[\s\S]*rc2=1[\s\S]*rc3=1[\s\S]*LEGIT_OK/);

      expect(readFileSync(join(ws, ".git/config"), "utf8")).toBe(config);
      expect(readFileSync(join(wt, ".git"), "utf8")).toBe(pointer);
      expect(readFileSync(join(gitdir, "HEAD"), "utf8")).toBe(head);
      expect(existsSync(join(ws, ".git/hooks"))).toBe(true);
      expect(existsSync(join(ws, ".git/hooks/pre-commit"))).toBe(false);
      expect(readFileSync(join(ws, "legit.txt"), "utf8")).toBe("ok\n");
      expect(readFileSync(join(wt, "legit.txt"), "utf8")).toBe("ok\n");
    });
  });
});
