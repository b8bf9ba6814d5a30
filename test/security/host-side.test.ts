/**
 * What Tandem itself runs or reads on the host, attacked from inside the workspace. The hostile
 * model (scripted) plants every git vector that makes git run a program — fsmonitor, hooks,
 * hooksPath, external diff, textconv and filter drivers, pager, editor, ssh command, credential
 * helper, include and includeIf paths — in a repository it made itself, in a `.git` file pointing
 * elsewhere and in a repository planted in a parent directory; then it runs commands and patches
 * across two `tandem exec` runs (the turn-diff watch compares after each). Every planted program
 * appends to a marker outside every writable root: the marker must never appear, while the turn
 * diff still shows what the commands changed. Then the hang vectors: FIFOs named AGENTS.md, a
 * role file, a .gitignore and a patch target. Workspaces under /tmp and outside it; as root;
 * sandboxed where bubblewrap is installed (else the commands run unsandboxed, which changes
 * nothing here: the commands never run the planted programs themselves).
 */
import { chmodSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { jsonLines, type MockProcess, runTandem, startMockProcess } from "../helpers/cli.js";
import { outsideDir, tempDir } from "../helpers/index.js";

const cleanup: string[] = [];
let mock: MockProcess | undefined;
afterEach(async () => {
  await mock?.stop();
  mock = undefined;
  for (const d of cleanup.splice(0)) rmSync(d, { recursive: true, force: true });
});

const exec = (id: string, cmd: string) => ({
  type: "function_call" as const,
  name: "exec_command",
  call_id: id,
  arguments: { cmd },
});
const patch = (id: string, input: string) => ({
  type: "custom_tool_call" as const,
  name: "apply_patch",
  call_id: id,
  input,
});
const say = (text: string) => ({ type: "message" as const, text });

const places = [
  ["under /tmp", () => tempDir("tandem-host-ws-")],
  [
    "outside /tmp",
    () => {
      const d = outsideDir("tandem-host-ws-");
      cleanup.push(d);
      return d;
    },
  ],
] as const;

/** A marker dir outside every writable root, and the script each planted program runs. */
function marker(): { dir: string; file: string; script: string } {
  const dir = outsideDir("tandem-host-marker-");
  cleanup.push(dir);
  const file = join(dir, "ran");
  return { dir, file, script: `#!/bin/sh\necho "$0 $*" >> ${file}\n` };
}

/** Shell lines that make `dir` a repository whose every configurable program is `evil`. */
function plantRepo(dir: string, evil: string): string {
  const cfg = (k: string, v: string) => `git -C ${dir} config ${k} '${v}'`;
  return [
    `git init -q ${dir}`,
    cfg("core.fsmonitor", evil),
    cfg("core.hooksPath", `${dir}/hooks`),
    `mkdir -p ${dir}/hooks ${dir}/.git/hooks`,
    ...[
      "post-index-change",
      "reference-transaction",
      "pre-commit",
      "post-checkout",
      "fsmonitor-watchman",
    ].flatMap((h) => [`cp ${evil} ${dir}/hooks/${h}`, `cp ${evil} ${dir}/.git/hooks/${h}`]),
    cfg("diff.external", evil),
    cfg("diff.evil.textconv", evil),
    cfg("filter.evil.clean", evil),
    cfg("filter.evil.smudge", evil),
    cfg("filter.evil.process", evil),
    cfg("filter.evil.required", "true"),
    cfg("core.pager", evil),
    cfg("core.editor", evil),
    cfg("core.sshCommand", evil),
    cfg("credential.helper", evil),
    `printf '[core]\\n\\tfsmonitor = ${evil}\\n' > ${dir}/inc.cfg`,
    cfg("include.path", `${dir}/inc.cfg`),
    cfg("includeIf.gitdir:/.path", `${dir}/inc.cfg`),
    `printf '* diff=evil filter=evil\\n' > ${dir}/.gitattributes`,
  ].join(" && ");
}

async function run(cwd: string, home: string, steps: unknown[], resume?: string) {
  mock = await startMockProcess({ steps });
  const env = { TANDEM_HOME: home, OPENAI_API_KEY: "k", OPENAI_BASE_URL: mock.url };
  const args = resume
    ? ["exec", "--json", "resume", resume, "go on"]
    : ["exec", "--json", "--cd", cwd, "--skip-git-repo-check", "go"];
  // Bounded: a host call that hangs (the bug under test) fails the test at once, saying so.
  const r = await runTandem(args, { env, cwd, killAfterMs: 20_000 });
  await mock.stop();
  mock = undefined;
  return r;
}

/** The thread id and the last turn diff the JSON stream reported through the store. */
function threadOf(stdout: string): string {
  return jsonLines(stdout).find((e) => e.type === "thread.started").thread_id;
}

describe("Tandem never runs a program or follows a path a workspace file names", () => {
  describe.each(places)("workspace %s", (_where, makeWs) => {
    it("a repository the model made, with every git program set, runs nothing on the host", async () => {
      const ws = makeWs();
      const home = tempDir("tandem-home-");
      const m = marker();
      const evil = `${ws}/x.sh`;
      const steps1 = [
        {
          output: [
            exec(
              "c1",
              `printf '${m.script.replace(/\n/g, "\\n")}' > ${evil} && chmod +x ${evil} && ${plantRepo(ws, evil)} && echo planted`,
            ),
          ],
        },
        { output: [exec("c2", "echo one > one.txt")] },
        { output: [patch("p1", "*** Begin Patch\n*** Add File: two.txt\n+two\n*** End Patch\n")] },
        { output: [say("done")] },
      ];
      const first = await run(ws, home, steps1);
      expect(first.code, first.stderr).toBe(0);
      expect(first.stdout).toContain("planted");
      const thread = threadOf(first.stdout);
      // A second process opens the now-git workspace: its start-up scan and its watch.
      const steps2 = [
        { output: [exec("c3", "echo three > three.txt && rm one.txt")] },
        { output: [say("ok")] },
      ];
      const second = await run(ws, home, steps2, thread);
      expect(second.code, second.stderr).toBe(0);
      // fails if Tandem runs git (or anything a .git names) on the host: the marker appears.
      expect(existsSync(m.file), existsSync(m.file) ? readFileSync(m.file, "utf8") : "").toBe(false);
      // The watch still works: the second turn's diff has the command's changes.
      const exported = await runTandem(["export", thread], { env: { TANDEM_HOME: home } });
      const turns = await turnDiffs(home, thread);
      expect(turns.at(-1)).toContain("+three");
      expect(turns.at(-1)).toContain("-one");
      expect(exported.code).toBe(0);
    });

    it("a .git file pointing at a hostile git dir, and a repository planted in a parent directory", async () => {
      const parent = mkdtempSync(join(makeWs(), "p-"));
      const ws = join(parent, "work");
      mkdirSync(ws);
      const home = tempDir("tandem-home-");
      const m = marker();
      const evilDir = tempDir("tandem-evil-");
      const evil = `${evilDir}/x.sh`;
      writeFileSync(evil, m.script);
      chmodSync(evil, 0o755);
      const steps = [
        {
          output: [
            exec(
              "c1",
              `${plantRepo(`${evilDir}/repo`, evil)} && printf 'gitdir: ${evilDir}/repo/.git\\n' > .git && ${plantRepo(parent, evil)} && echo planted`,
            ),
          ],
        },
        { output: [exec("c2", "echo one > one.txt")] },
        { output: [say("done")] },
      ];
      const first = await run(ws, home, steps);
      expect(first.code, first.stderr).toBe(0);
      const thread = threadOf(first.stdout);
      const second = await run(
        ws,
        home,
        [{ output: [exec("c3", "echo again >> one.txt")] }, { output: [say("ok")] }],
        thread,
      );
      expect(second.code, second.stderr).toBe(0);
      // fails if the .git pointer or the parent's repository is used by anything Tandem runs
      expect(existsSync(m.file), existsSync(m.file) ? readFileSync(m.file, "utf8") : "").toBe(false);
      expect((await turnDiffs(home, thread)).at(-1)).toContain("+again");
    });
  });

  it("FIFOs named AGENTS.md, a role file, .gitignore and a patch target never hang Tandem", async () => {
    const ws = tempDir("tandem-host-fifo-");
    const home = tempDir("tandem-home-");
    const steps = [
      {
        output: [
          exec(
            "c1",
            "mkfifo AGENTS.md .gitignore target && mkdir -p .tandem/agents && mkfifo .tandem/agents/x.md && echo made",
          ),
        ],
      },
      { output: [patch("p1", "*** Begin Patch\n*** Update File: target\n@@\n-a\n+b\n*** End Patch\n")] },
      { output: [exec("c2", "echo after > after.txt")] },
      { output: [say("done")] },
    ];
    const first = await run(ws, home, steps);
    expect(first.code, first.stderr).toBe(0);
    // fails if apply_patch opens the FIFO (the run never ends) instead of refusing it
    const failed = jsonLines(first.stdout).find(
      (e) => e.type === "item.completed" && e.item.type === "file_change",
    );
    expect(JSON.stringify(failed)).toMatch(/not a regular file/);
    // A new thread in that workspace reads AGENTS.md and the roles at its start: no hang.
    const again = await run(ws, home, [{ output: [say("fine")] }]);
    expect(again.code, again.stderr).toBe(0);
    expect(again.stdout).toContain("fine");
  });

  it("a .git and AGENTS.md planted in /tmp above a workspace are not the project", async () => {
    const parent = tempDir("tandem-host-parent-");
    const ws = join(parent, "work");
    mkdirSync(ws);
    const home = tempDir("tandem-home-");
    mkdirSync(join(parent, ".git"));
    writeFileSync(join(parent, "AGENTS.md"), "PLANTED-INSTRUCTIONS\n");
    mock = await startMockProcess({ steps: [{ output: [say("ok")] }] });
    const env = { TANDEM_HOME: home, OPENAI_API_KEY: "k", OPENAI_BASE_URL: mock.url };
    const r = await runTandem(["exec", "--cd", ws, "--skip-git-repo-check", "hi"], { env, cwd: ws });
    expect(r.code, r.stderr).toBe(0);
    // fails if the walk up to the project root enters /tmp: the planted text reaches the model
    expect(readFileSync(mock.log, "utf8")).not.toContain("PLANTED-INSTRUCTIONS");
  });
});

/** Each turn's stored diff, oldest first (read back through the HTTP-free store API). */
async function turnDiffs(home: string, thread: string): Promise<string[]> {
  const { openStore } = await import("../../src/store/index.js");
  const store = openStore(join(home, "state.db"));
  try {
    return store.listTurns(thread).map((t) => t.diff ?? "");
  } finally {
    store.close();
  }
}
