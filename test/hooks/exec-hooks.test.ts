/**
 * User hooks through `./bin/tandem exec` against `tandem mock-model`, both real processes
 * (README "Hooks", "Notifications"): a Claude-Code-style hooks.json as written for Claude Code.
 */
import { chmodSync, existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { type MockProcess, runTandem, startMockProcess } from "../helpers/cli.js";
import { outsideDir, tempDir } from "../helpers/index.js";

const exec = (cmd: string, call_id: string) => ({
  type: "function_call" as const,
  name: "exec_command",
  arguments: { cmd },
  call_id,
});
const say = (text: string) => ({ type: "message" as const, text });

/** A hook script outside every workspace; returns its absolute path. */
function script(dir: string, name: string, body: string): string {
  const p = join(dir, name);
  writeFileSync(p, `#!/bin/sh\n${body}\n`);
  chmodSync(p, 0o755);
  return p;
}

function homeWith(hooks: unknown, config = ""): string {
  const home = tempDir("tandem-hooks-home-");
  writeFileSync(join(home, "hooks.json"), JSON.stringify({ hooks }));
  if (config) writeFileSync(join(home, "config.toml"), config);
  return home;
}

const requests = (m: MockProcess): any[] =>
  readFileSync(m.log, "utf8")
    .split("\n")
    .filter(Boolean)
    .map((l) => JSON.parse(l));

describe("hooks through tandem exec", () => {
  let mock: MockProcess | undefined;
  afterEach(async () => {
    await mock?.stop();
    mock = undefined;
  });
  const env = (home: string) => ({ TANDEM_HOME: home, OPENAI_API_KEY: "k", OPENAI_BASE_URL: mock!.url });

  it("a PreToolUse Bash hook that exits 2 stops `rm -rf`; the model's next request carries the reason", async () => {
    const dir = outsideDir("tandem-hook-scripts-");
    const guard = script(
      dir,
      "guard.sh",
      `input=$(cat)\ncase "$input" in *'rm -rf'*) echo "rm -rf is not allowed here; use trash" >&2; exit 2;; esac\nexit 0`,
    );
    const home = homeWith({
      PreToolUse: [{ matcher: "Bash", hooks: [{ type: "command", command: guard }] }],
    });
    mock = await startMockProcess({
      steps: [
        { output: [exec("rm -rf victim", "rm1")] },
        {
          expect: { input_contains: ["rm -rf is not allowed here; use trash"] },
          output: [say("ok, kept it")],
        },
      ],
    });
    const cwd = tempDir();
    mkdirSync(join(cwd, "victim"));
    writeFileSync(join(cwd, "victim/keep.txt"), "x");
    const r = await runTandem(["exec", "--cd", cwd, "clean up"], { env: env(home) });
    expect(r.code, r.stderr).toBe(0);
    expect(existsSync(join(cwd, "victim/keep.txt"))).toBe(true);
    const out = requests(mock)[1].input.find((i: any) => i.type === "function_call_output");
    expect(out.output).toContain("rm -rf is not allowed here; use trash");
  });

  it("updatedInput rewrites the command before it runs", async () => {
    const dir = outsideDir("tandem-hook-scripts-");
    const rewrite = script(
      dir,
      "rewrite.sh",
      `cat >/dev/null\necho '{"hookSpecificOutput":{"hookEventName":"PreToolUse","permissionDecision":"allow","updatedInput":{"command":"echo rewritten > out.txt"}}}'`,
    );
    const home = homeWith({
      PreToolUse: [{ matcher: "Bash", hooks: [{ type: "command", command: rewrite }] }],
    });
    mock = await startMockProcess({
      steps: [{ output: [exec("echo original > out.txt", "c1")] }, { output: [say("done")] }],
    });
    const cwd = tempDir();
    const r = await runTandem(["exec", "--cd", cwd, "write"], { env: env(home) });
    expect(r.code, r.stderr).toBe(0);
    expect(readFileSync(join(cwd, "out.txt"), "utf8")).toBe("rewritten\n");
  });

  it("a hook that hangs, floods stdout or prints invalid JSON is reported, and the turn goes on", async () => {
    const dir = outsideDir("tandem-hook-scripts-");
    const hang = script(dir, "hang.sh", "sleep 600");
    const flood = script(dir, "flood.sh", "cat >/dev/null\nhead -c 3000000 /dev/zero | tr '\\\\0' x");
    const bad = script(dir, "bad.sh", "cat >/dev/null\necho '{not json'");
    const home = homeWith({
      PreToolUse: [
        {
          matcher: "*",
          hooks: [
            { type: "command", command: hang, timeout: 1 },
            { type: "command", command: flood },
            { type: "command", command: bad },
          ],
        },
      ],
    });
    mock = await startMockProcess({
      steps: [{ output: [exec("echo ran > ran.txt", "c1")] }, { output: [say("done")] }],
    });
    const cwd = tempDir();
    const r = await runTandem(["exec", "--cd", cwd, "go"], { env: env(home) });
    expect(r.code, r.stderr).toBe(0);
    expect(readFileSync(join(cwd, "ran.txt"), "utf8")).toBe("ran\n");
    expect(r.stderr).toMatch(
      /hook: hook `[^`]*hang\.sh` \(PreToolUse\) did not finish within 1 s and was killed/,
    );
    expect(r.stderr).toMatch(
      /hook: hook `[^`]*flood\.sh` \(PreToolUse\) printed more than \d+ bytes of output/,
    );
    expect(r.stderr).toMatch(/hook: hook `[^`]*bad\.sh` \(PreToolUse\) printed invalid JSON on stdout/);
  });

  it("notify and the Notification hook get the payload when a turn ends", async () => {
    const dir = outsideDir("tandem-hook-scripts-");
    const out = join(dir, "notified.json");
    const note = join(dir, "hooked.json");
    const notifier = script(dir, "notify.sh", `printf '%s' "$1" > ${out}\ncat > ${out}.stdin`);
    const hook = script(dir, "note.sh", `cat > ${note}`);
    const home = homeWith(
      { Notification: [{ matcher: "turn_complete", hooks: [{ type: "command", command: hook }] }] },
      `notify = ["${notifier}"]\n`,
    );
    mock = await startMockProcess({ steps: [{ output: [say("all done")] }] });
    const cwd = tempDir();
    const r = await runTandem(["exec", "--json", "--cd", cwd, "hello there"], { env: env(home) });
    expect(r.code, r.stderr).toBe(0);
    const threadId = JSON.parse(r.stdout.split("\n")[0]).thread_id;
    const payload = JSON.parse(readFileSync(out, "utf8"));
    expect(payload).toMatchObject({
      type: "agent-turn-complete",
      "thread-id": threadId,
      cwd,
      "input-messages": ["hello there"],
      "last-assistant-message": "all done",
    });
    expect(payload["turn-id"]).toEqual(expect.any(String));
    expect(payload.url).toBeUndefined();
    expect(JSON.parse(readFileSync(`${out}.stdin`, "utf8"))).toEqual(payload);
    const hooked = JSON.parse(readFileSync(note, "utf8"));
    expect(hooked).toMatchObject({
      hook_event_name: "Notification",
      notification_type: "turn_complete",
      thread_id: threadId,
      cwd,
    });
  });

  it("`tandem hooks list --json` shows what is loaded, from where, trusted or not", async () => {
    const home = homeWith({
      PreToolUse: [{ matcher: "Bash", hooks: [{ type: "command", command: "/bin/true" }] }],
    });
    const cwd = tempDir();
    mkdirSync(join(cwd, ".codex"));
    writeFileSync(
      join(cwd, ".codex/hooks.json"),
      JSON.stringify({
        hooks: { Stop: [{ hooks: [{ type: "command", command: "/bin/false", timeout: 5 }] }], Bogus: [] },
      }),
    );
    const r = await runTandem(["hooks", "list", "--json", "-C", cwd], { env: { TANDEM_HOME: home } });
    expect(r.code, r.stderr).toBe(0);
    const j = JSON.parse(r.stdout);
    expect(j.hooks).toEqual([
      expect.objectContaining({
        event: "PreToolUse",
        matcher: "Bash",
        command: "/bin/true",
        timeout: 60,
        scope: "user",
        trust: "trusted",
        source: join(home, "hooks.json"),
      }),
      expect.objectContaining({
        event: "Stop",
        matcher: null,
        command: "/bin/false",
        timeout: 5,
        scope: "project",
        trust: "untrusted",
        source: join(cwd, ".codex/hooks.json"),
      }),
    ]);
    expect(j.warnings.join("\n")).toMatch(/event "Bogus" is not one Tandem fires/);
    // Without the hash nothing is trusted: the commands are shown in full with the file's hash.
    const shown = await runTandem(["hooks", "trust", "-C", cwd], { env: { TANDEM_HOME: home } });
    expect(shown.code).toBe(1);
    expect(shown.stdout).toContain('"/bin/false"');
    const hash = /\(sha256 ([0-9a-f]{64})\)/.exec(shown.stdout)![1];
    const wrong = await runTandem(["hooks", "trust", "--sha256", "0".repeat(64), "-C", cwd], {
      env: { TANDEM_HOME: home },
    });
    expect(wrong.code).toBe(1);
    const t = await runTandem(["hooks", "trust", "--sha256", hash, "-C", cwd], {
      env: { TANDEM_HOME: home },
    });
    expect(t.code, t.stderr).toBe(0);
    const again = JSON.parse(
      (await runTandem(["hooks", "list", "--json", "-C", cwd], { env: { TANDEM_HOME: home } })).stdout,
    );
    expect(again.hooks[1].trust).toBe("trusted");
    writeFileSync(join(cwd, ".codex/hooks.json"), JSON.stringify({ hooks: {} }) + " ");
    const changed = JSON.parse(
      (await runTandem(["hooks", "list", "--json", "-C", cwd], { env: { TANDEM_HOME: home } })).stdout,
    );
    expect(changed.sources.find((s: any) => s.scope === "project").trust).toBe("modified");
  });

  // Fails if `tandem exec resume` (a headless run nobody can ask) runs a project hooks file it
  // has not seen trusted — one that appeared in the workspace after the thread began, as a file
  // the model wrote would — or does not say that it skipped it.
  it("`tandem exec resume` does not run untrusted project hooks, and says so", async () => {
    const outside = outsideDir("tandem-hook-markers-");
    const touch = (event: string) => ({
      hooks: [{ type: "command", command: `touch ${join(outside, event)}` }],
    });
    const events = ["SessionStart", "UserPromptSubmit", "PreToolUse", "PostToolUse", "Stop"];
    mock = await startMockProcess({
      steps: [
        { output: [say("first")] },
        { output: [exec("echo resumed", "c1")] },
        { output: [say("second")] },
      ],
    });
    const home = tempDir("tandem-hooks-home-");
    const cwd = tempDir();
    const first = await runTandem(["exec", "--json", "--cd", cwd, "begin"], { env: env(home) });
    expect(first.code, first.stderr).toBe(0);
    const threadId = JSON.parse(first.stdout.split("\n")[0]).thread_id;
    mkdirSync(join(cwd, ".tandem"));
    writeFileSync(
      join(cwd, ".tandem/hooks.json"),
      JSON.stringify({ hooks: Object.fromEntries(events.map((e) => [e, [touch(e)]])) }),
    );
    const r = await runTandem(["exec", "resume", "--cd", cwd, threadId, "go on"], { env: env(home) });
    expect(r.code, r.stderr).toBe(0);
    expect(requests(mock)).toHaveLength(3);
    for (const e of events) expect(existsSync(join(outside, e)), `${e} hook ran`).toBe(false);
    expect(r.stderr).toContain(
      `hook: project hooks not trusted, skipped: ${join(cwd, ".tandem/hooks.json")}`,
    );
  });
});
