/**
 * apply_patch safety (README "Sandbox and approvals"), through the real loop with the scripted model
 * sending the attack as an apply_patch call:
 * - a patch never writes a repository's `.git` (plain, `..`, absolute, symbolic link, Move to,
 *   Delete) under read-only or workspace-write, nor Tandem's home/store in any mode, and no
 *   approval can grant either: the patch is refused whole, nothing written, the model told;
 * - a read-only approval lists every path the parser will touch (indented headers, Move to),
 *   as absolute paths, so accept-for-session never covers a file the user did not see.
 * Workspaces both under /tmp and outside it (we run as root, like CI and Docker).
 */
import {
  existsSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { basename, join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import type { EventOf } from "../../src/protocol/events.js";
import { decide, type Harness, harness, tempDir } from "../helpers/index.js";

const GIT_CONFIG = "[core]\n\trepositoryformatversion = 0\n";
const HEAD = "ref: refs/heads/main\n";
const patchOf = (...body: string[]) => ["*** Begin Patch", ...body, "*** End Patch"].join("\n");
const fsmonitor = (path: string) =>
  patchOf(`*** Update File: ${path}`, "@@", " [core]", "+\tfsmonitor = touch /tmp/tandem-pwned");
const patchCall = (id: string, input: string) => ({
  output: [{ type: "custom_tool_call" as const, name: "apply_patch", input, call_id: id }],
});
const done = { output: [{ type: "message" as const, text: "done" }] };

/** Output the model received for `callId`. */
function outputOf(h: Harness, callId: string): string {
  for (const body of h.model.requests as any[]) {
    const o = body.input.find((i: any) => i.type === "custom_tool_call_output" && i.call_id === callId);
    if (o) return typeof o.output === "string" ? o.output : JSON.stringify(o.output);
  }
  return "";
}

const approvals = (h: Harness) =>
  h.events
    .map((s) => s.event)
    .filter((e): e is EventOf<"question.requested"> => e.type === "question.requested");

/** A responder that accepts every approval for the session: whatever is refused, no approval granted it. */
function acceptEverything(h: Harness, threadId: string): void {
  h.runtime.questions.attach({ threadId }, { kind: "test" });
  h.runtime.subscribe((s) => {
    if (s.event.type === "question.requested") {
      const e = s.event;
      setTimeout(() => decide(h, e, "Accept for session"), 0);
    }
  });
}

/** Runs one turn of `steps` with every approval accepted; returns the harness. */
async function attack(
  steps: ReturnType<typeof patchCall>[],
  opts: { cwd: string; home?: string; overrides?: string[] },
): Promise<Harness> {
  // Patches are applied in-process, so these hold without bubblewrap: the mode is explicit
  // (the harness would otherwise fall back to full access on a machine without it).
  const overrides = ['sandbox_mode="workspace-write"', ...(opts.overrides ?? [])];
  const h = await harness({ script: { steps: [...steps, done] }, ...opts, overrides });
  const thread = h.runtime.threads.start({ cwd: opts.cwd });
  acceptEverything(h, thread.id);
  expect((await thread.startTurn("go").done).status).toBe("completed");
  return h;
}

function makeRepo(dir: string): void {
  mkdirSync(join(dir, ".git", "hooks"), { recursive: true });
  writeFileSync(join(dir, ".git", "config"), GIT_CONFIG);
  writeFileSync(join(dir, ".git", "HEAD"), HEAD);
  writeFileSync(join(dir, "notes.txt"), "notes\n");
}

const gitIntact = (dir: string) => {
  expect(readFileSync(join(dir, ".git", "config"), "utf8")).toBe(GIT_CONFIG);
  expect(readFileSync(join(dir, ".git", "HEAD"), "utf8")).toBe(HEAD);
  expect(existsSync(join(dir, ".git", "hooks", "post-checkout"))).toBe(false);
};

const cleanups: string[] = [];
let h: Harness | undefined;
afterEach(async () => {
  await h?.close();
  h = undefined;
  for (const d of cleanups.splice(0)) rmSync(d, { recursive: true, force: true });
});

/** A workspace under /tmp, or under /var/lib (outside every temp writable root). */
const workspaces: Array<[string, () => string]> = [
  ["under /tmp", () => tempDir("tandem-ws-")],
  [
    "outside /tmp",
    () => {
      const d = mkdtempSync("/var/lib/tandem-test-");
      cleanups.push(d);
      return d;
    },
  ],
];

describe.each(workspaces)("apply_patch never writes .git (workspace %s)", (_where, makeWs) => {
  // fails if patches skip the .git guard (writes .git/config directly), or if a refusal is not
  // atomic (the legitimate a.txt of the same patch lands), or if the approval path grants it.
  it("refuses .git/config by plain path, atomically, without asking", async () => {
    const cwd = makeWs();
    makeRepo(cwd);
    const input = patchOf(
      "*** Add File: a.txt",
      "+legit",
      "*** Update File: .git/config",
      "@@",
      " [core]",
      "+\tfsmonitor = touch /tmp/tandem-pwned",
    );
    h = await attack([patchCall("p1", input)], { cwd });
    gitIntact(cwd);
    expect(existsSync(join(cwd, "a.txt"))).toBe(false);
    expect(approvals(h)).toHaveLength(0);
    expect(outputOf(h, "p1")).toMatch(/\.git[\s\S]*No files were changed/);
  });

  // fails if the guard looks at the path as written instead of the resolved location (`..`).
  it("refuses .git/config through ../<workspace>/.git/config", async () => {
    const cwd = makeWs();
    makeRepo(cwd);
    h = await attack([patchCall("p1", fsmonitor(`../${basename(cwd)}/.git/config`))], { cwd });
    gitIntact(cwd);
    expect(approvals(h)).toHaveLength(0);
    expect(outputOf(h, "p1")).toMatch(/\.git/);
  });

  // fails if absolute paths bypass the guard, or if a .git outside the workspace can be
  // granted by the outside-the-workspace approval (the responder accepts everything).
  it("refuses .git/config by absolute path, inside and outside the workspace", async () => {
    const cwd = makeWs();
    makeRepo(cwd);
    const other = mkdtempSync("/var/lib/tandem-test-other-");
    cleanups.push(other);
    makeRepo(other);
    h = await attack(
      [
        patchCall("p1", fsmonitor(join(cwd, ".git/config"))),
        patchCall("p2", fsmonitor(join(other, ".git/config"))),
      ],
      { cwd },
    );
    gitIntact(cwd);
    gitIntact(other);
    expect(approvals(h)).toHaveLength(0);
    expect(outputOf(h, "p1")).toMatch(/\.git/);
    expect(outputOf(h, "p2")).toMatch(/\.git/);
  });

  // fails if the guard checks only the lexical path and not where symbolic links lead.
  it("refuses .git through a symbolic link in the workspace (to the directory or to the file)", async () => {
    const cwd = makeWs();
    makeRepo(cwd);
    symlinkSync(join(cwd, ".git"), join(cwd, "meta"));
    symlinkSync(join(cwd, ".git", "config"), join(cwd, "cfg"));
    h = await attack(
      [
        patchCall("p1", fsmonitor("meta/config")),
        patchCall("p2", fsmonitor("cfg")),
        patchCall("p3", patchOf("*** Add File: meta/hooks/post-checkout", "+#!/bin/sh", "+touch /tmp/pwned")),
      ],
      { cwd },
    );
    gitIntact(cwd);
    expect(approvals(h)).toHaveLength(0);
    for (const id of ["p1", "p2", "p3"]) expect(outputOf(h, id)).toMatch(/\.git/);
  });

  // fails if `*** Move to:` targets are not checked (a hook lands via a rename).
  it("refuses a Move to: into .git", async () => {
    const cwd = makeWs();
    makeRepo(cwd);
    const input = patchOf("*** Update File: notes.txt", "*** Move to: .git/hooks/post-checkout");
    h = await attack([patchCall("p1", input)], { cwd });
    gitIntact(cwd);
    expect(readFileSync(join(cwd, "notes.txt"), "utf8")).toBe("notes\n");
    expect(outputOf(h, "p1")).toMatch(/\.git[\s\S]*No files were changed/);
  });

  // fails if deletes are not checked.
  it("refuses Delete File: .git/HEAD", async () => {
    const cwd = makeWs();
    makeRepo(cwd);
    h = await attack([patchCall("p1", patchOf("*** Delete File: .git/HEAD"))], { cwd });
    gitIntact(cwd);
    expect(outputOf(h, "p1")).toMatch(/\.git/);
  });

  // fails if only an existing top-level .git is protected: a new nested `sub/.git` (a fake
  // repository whose config runs code at `git status` there) must be refused too.
  it("refuses creating a nested .git, while ordinary files (.gitignore, .github) still work", async () => {
    const cwd = makeWs();
    makeRepo(cwd);
    h = await attack(
      [
        patchCall(
          "p1",
          patchOf("*** Add File: sub/.git/config", "+[core]", "+\tfsmonitor = touch /tmp/pwned"),
        ),
        patchCall(
          "p2",
          patchOf("*** Add File: .gitignore", "+dist/", "*** Add File: .github/ci.yml", "+on: push"),
        ),
      ],
      { cwd },
    );
    expect(existsSync(join(cwd, "sub"))).toBe(false);
    expect(outputOf(h, "p1")).toMatch(/\.git/);
    expect(outputOf(h, "p2")).toMatch(/^Success/);
    expect(readFileSync(join(cwd, ".gitignore"), "utf8")).toBe("dist/\n");
  });
});

describe("apply_patch never writes .git: indirect git directories and races", () => {
  // fails if only `.git` components count: a worktree's `.git` file points to a git directory
  // elsewhere, whose `commondir` holds the shared config (runs code just the same), and the
  // outside-the-workspace approval must not grant either.
  it("refuses the git directory a `.git` file points to, and its commondir", async () => {
    const cwd = tempDir("tandem-ws-");
    const gd = mkdtempSync("/var/lib/tandem-test-gitdir-");
    cleanups.push(gd);
    const wt = join(gd, "worktrees", "wt");
    mkdirSync(wt, { recursive: true });
    writeFileSync(join(gd, "config"), GIT_CONFIG);
    writeFileSync(join(wt, "commondir"), "../..\n");
    writeFileSync(join(wt, "HEAD"), HEAD);
    writeFileSync(join(cwd, ".git"), `gitdir: ${wt}\n`);
    h = await attack(
      [
        patchCall("p1", fsmonitor(join(gd, "config"))),
        patchCall("p2", patchOf(`*** Delete File: ${wt}/HEAD`)),
        patchCall("p3", patchOf("*** Delete File: .git")),
      ],
      { cwd },
    );
    expect(readFileSync(join(gd, "config"), "utf8")).toBe(GIT_CONFIG);
    expect(readFileSync(join(wt, "HEAD"), "utf8")).toBe(HEAD);
    expect(readFileSync(join(cwd, ".git"), "utf8")).toBe(`gitdir: ${wt}\n`);
    expect(approvals(h)).toHaveLength(0);
    for (const id of ["p1", "p2", "p3"]) expect(outputOf(h, id)).toMatch(/Git metadata/);
  });

  // fails if the guard is checked only before the approval and not again where the patch is
  // planned: while the user looks at the approval, a link is re-pointed into .git.
  it("re-checks after the approval: a link re-pointed into .git meanwhile is refused", async () => {
    const cwd = tempDir("tandem-ws-");
    makeRepo(cwd);
    mkdirSync(join(cwd, "plain"));
    writeFileSync(join(cwd, "plain", "config"), GIT_CONFIG);
    symlinkSync(join(cwd, "plain"), join(cwd, "link"));
    const outside = mkdtempSync("/var/lib/tandem-test-out-");
    cleanups.push(outside);
    const input = patchOf(
      `*** Add File: ${outside}/a.txt`,
      "+x",
      "*** Update File: link/config",
      "@@",
      " [core]",
      "+\tfsmonitor = touch /tmp/tandem-pwned",
    );
    h = await harness({
      script: { steps: [patchCall("p1", input), done] },
      cwd,
      overrides: ['sandbox_mode="workspace-write"'],
    });
    const thread = h.runtime.threads.start({ cwd });
    h.runtime.questions.attach({ threadId: thread.id }, { kind: "test" });
    const turn = thread.startTurn("go");
    const q = (await h.waitFor((e) => e.type === "question.requested")) as EventOf<"question.requested">;
    expect(q.request.approval?.paths).toEqual([join(outside, "a.txt")]);
    rmSync(join(cwd, "link"));
    symlinkSync(join(cwd, ".git"), join(cwd, "link"));
    decide(h, q, "Accept");
    await turn.done;
    gitIntact(cwd);
    expect(existsSync(join(outside, "a.txt"))).toBe(false);
    expect(outputOf(h, "p1")).toMatch(/Git metadata[\s\S]*No files were changed/);
  });
});

describe("apply_patch never writes Tandem's home or store", () => {
  // fails if protectedPaths are not enforced for patches, or only under the sandbox modes:
  // Tandem's home is refused even under danger-full-access (and .git is writable there).
  it.each(["workspace-write", "danger-full-access"])(
    "refuses $TANDEM_HOME inside the workspace (%s)",
    async (mode) => {
      const cwd = tempDir("tandem-ws-");
      makeRepo(cwd);
      const home = join(cwd, ".tandem");
      mkdirSync(home);
      h = await attack(
        [
          patchCall("p1", patchOf("*** Add File: .tandem/config.toml", '+approval_policy = "never"')),
          patchCall("p2", patchOf("*** Update File: notes.txt", "*** Move to: .tandem/rules.json")),
          patchCall("p3", patchOf("*** Add File: ok.txt", "+fine")),
        ],
        { cwd, home, overrides: [`sandbox_mode="${mode}"`] },
      );
      expect(existsSync(join(home, "config.toml"))).toBe(false);
      expect(existsSync(join(home, "rules.json"))).toBe(false);
      expect(readFileSync(join(cwd, "notes.txt"), "utf8")).toBe("notes\n");
      expect(outputOf(h, "p1")).toMatch(/Tandem's own state[\s\S]*No files were changed/);
      expect(outputOf(h, "p2")).toMatch(/Tandem's own state/);
      expect(readFileSync(join(cwd, "ok.txt"), "utf8")).toBe("fine\n");
      expect(approvals(h)).toHaveLength(0);
      if (mode === "danger-full-access") {
        // .git is not protected without a sandbox: the user asked for full access.
        await h.close();
        h = await attack([patchCall("g1", fsmonitor(".git/config"))], {
          cwd,
          home,
          overrides: [`sandbox_mode="${mode}"`],
        });
        expect(readFileSync(join(cwd, ".git", "config"), "utf8")).toContain("fsmonitor");
      }
    },
  );

  // fails if a writable root (here /tmp, where CI puts TANDEM_HOME) lets a patch reach the home,
  // by absolute path or through a symbolic link in the workspace, or if the store file is reachable.
  it("refuses $TANDEM_HOME under a /tmp writable root, by absolute path and through a link", async () => {
    const cwd = tempDir("tandem-ws-");
    const home = tempDir("tandem-home-");
    symlinkSync(home, join(cwd, "h"));
    h = await attack(
      [
        patchCall("p1", patchOf(`*** Add File: ${home}/config.toml`, '+approval_policy = "never"')),
        patchCall("p2", patchOf("*** Add File: h/config.toml", '+approval_policy = "never"')),
        patchCall("p3", patchOf("*** Delete File: h/state.db")),
        patchCall("p4", patchOf(`*** Add File: ${tmpdir()}/${basename(cwd)}-ok.txt`, "+fine")),
      ],
      { cwd, home, overrides: [`sandbox_workspace_write.writable_roots=["${tmpdir()}"]`] },
    );
    cleanups.push(join(tmpdir(), `${basename(cwd)}-ok.txt`));
    expect(existsSync(join(home, "config.toml"))).toBe(false);
    expect(existsSync(join(home, "state.db"))).toBe(true);
    for (const id of ["p1", "p2", "p3"]) expect(outputOf(h, id)).toMatch(/Tandem's own state/);
    // The writable root itself still works for ordinary files.
    expect(outputOf(h, "p4")).toMatch(/^Success/);
    expect(approvals(h)).toHaveLength(0);
  });
});

describe("read-only approvals list every path the patch touches", () => {
  // fails if approval paths come from a regex (indented headers and Move to: targets missing)
  // instead of the parser, or are not absolute.
  it("lists indented Add File and Move to: targets; declined → nothing written", async () => {
    const cwd = tempDir("tandem-ws-");
    writeFileSync(join(cwd, "a.txt"), "a\n");
    const input = patchOf(
      "  *** Add File: extra.txt",
      "+x",
      "*** Update File: a.txt",
      "*** Move to: sub/b.txt",
    );
    h = await harness({
      script: { steps: [patchCall("p1", input), done] },
      cwd,
      overrides: ['sandbox_mode="read-only"'],
    });
    const thread = h.runtime.threads.start({ cwd });
    h.runtime.questions.attach({ threadId: thread.id }, { kind: "test" });
    const turn = thread.startTurn("go");
    const q = (await h.waitFor((e) => e.type === "question.requested")) as EventOf<"question.requested">;
    expect(q.request.approval?.paths).toEqual([
      join(cwd, "extra.txt"),
      join(cwd, "a.txt"),
      join(cwd, "sub/b.txt"),
    ]);
    decide(h, q, "Decline");
    await turn.done;
    expect(existsSync(join(cwd, "extra.txt"))).toBe(false);
    expect(existsSync(join(cwd, "sub"))).toBe(false);
    expect(readFileSync(join(cwd, "a.txt"), "utf8")).toBe("a\n");
    expect(outputOf(h, "p1")).toMatch(/declined/);
  });

  // fails if accept-for-session covers a later patch that touches a file not approved (the
  // hidden Move to: target), or if `./a.txt`, `a.txt` and the absolute path are different keys,
  // or if an unparseable patch (no paths) counts as pre-approved.
  it("accept for session: same files pass (any spelling); an extra file or a bad patch asks again", async () => {
    const cwd = tempDir("tandem-ws-");
    writeFileSync(join(cwd, "a.txt"), "one\n");
    const upd = (path: string, from: string, to: string) =>
      patchOf(`*** Update File: ${path}`, "@@", `-${from}`, `+${to}`);
    h = await harness({
      script: {
        steps: [
          patchCall("s1", upd("a.txt", "one", "two")),
          patchCall("s2", upd("./a.txt", "two", "three")),
          patchCall("s3", upd(join(cwd, "a.txt"), "three", "four")),
          patchCall("s4", patchOf("*** Update File: a.txt", "*** Move to: stolen.txt")),
          patchCall("s5", "*** Begin Patch\n  *** Add File: sneaky.txt\n+x\n"),
          done,
        ],
      },
      cwd,
      overrides: ['sandbox_mode="read-only"'],
    });
    const thread = h.runtime.threads.start({ cwd });
    h.runtime.questions.attach({ threadId: thread.id }, { kind: "test" });
    const turn = thread.startTurn("go");
    const q1 = (await h.waitFor((e) => e.type === "question.requested")) as EventOf<"question.requested">;
    expect(q1.request.approval?.paths).toEqual([join(cwd, "a.txt")]);
    decide(h, q1, "Accept for session");
    const q2 = (await h.waitFor(
      (e) => e.type === "question.requested" && e.request.request_id !== q1.request.request_id,
    )) as EventOf<"question.requested">;
    expect(q2.request.call_id).toBe("s4");
    expect(q2.request.approval?.paths).toEqual([join(cwd, "a.txt"), join(cwd, "stolen.txt")]);
    decide(h, q2, "Decline");
    const seen = new Set([q1.request.request_id, q2.request.request_id]);
    const q3 = (await h.waitFor(
      (e) => e.type === "question.requested" && !seen.has(e.request.request_id),
    )) as EventOf<"question.requested">;
    expect(q3.request.call_id).toBe("s5");
    expect(q3.request.approval?.paths ?? []).toEqual([]);
    decide(h, q3, "Decline");
    await turn.done;
    expect(readFileSync(join(cwd, "a.txt"), "utf8")).toBe("four\n");
    expect(existsSync(join(cwd, "stolen.txt"))).toBe(false);
    expect(existsSync(join(cwd, "sneaky.txt"))).toBe(false);
    expect(outputOf(h, "s4")).toMatch(/declined/);
  });

  // fails if the read-only hook asks the user about a protected path (an approval that the
  // tool would then refuse, or worse, honour).
  it("refuses .git without asking under read-only", async () => {
    const cwd = tempDir("tandem-ws-");
    makeRepo(cwd);
    h = await attack([patchCall("p1", fsmonitor(".git/config"))], {
      cwd,
      overrides: ['sandbox_mode="read-only"'],
    });
    gitIntact(cwd);
    expect(approvals(h)).toHaveLength(0);
    expect(outputOf(h, "p1")).toMatch(/\.git/);
  });
});
