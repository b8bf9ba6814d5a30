import { mkdirSync, statSync, symlinkSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { tempDir } from "../../test/helpers/index.js";
import { decide } from "./engine.js";
import { loadHooks } from "./loader.js";
import { fromToolInput, matches, toolInput, toolNames } from "./match.js";
import type { HookRun } from "./run.js";
import { createTrustStore } from "./trust.js";
import type { HookDef } from "./types.js";

const def = (over: Partial<HookDef> = {}): HookDef =>
  ({ event: "PreToolUse", matcher: undefined, command: "x", timeoutSec: 60, key: "k", ...over }) as HookDef;
const run = (r: Omit<HookRun, "hook">): HookRun => ({ hook: def(), ...r });

describe("matchers", () => {
  it("match the names users know, whole-name regex, * and empty = all", () => {
    expect(matches({ matcher: "Bash" }, toolNames("exec_command"))).toBe(true);
    expect(matches({ matcher: "Edit|Write|MultiEdit" }, toolNames("apply_patch"))).toBe(true);
    expect(matches({ matcher: "Bash" }, toolNames("apply_patch"))).toBe(false);
    expect(matches({ matcher: "mcp__github__.*" }, toolNames("mcp__github__create_issue"))).toBe(true);
    expect(matches({ matcher: "mcp__github" }, toolNames("mcp__github__create_issue"))).toBe(false);
    expect(matches({ matcher: "request_user_input" }, toolNames("request_user_input"))).toBe(true);
    for (const m of [undefined, "", "*"]) expect(matches({ matcher: m }, ["anything"])).toBe(true);
  });

  it("maps Bash input both ways and keeps fields an updatedInput leaves out", () => {
    const args = { cmd: "ls", workdir: "/w" };
    expect(toolInput("exec_command", args)).toEqual({ command: "ls", cmd: "ls", workdir: "/w" });
    expect(fromToolInput("exec_command", args, { command: "pwd" })).toEqual({ cmd: "pwd", workdir: "/w" });
    expect(fromToolInput("apply_patch", "*** Begin Patch", { input: "other" })).toBe("other");
  });
});

describe("decide", () => {
  it("exit 2 blocks with stderr; deny beats ask beats allow; first updatedInput wins", () => {
    expect(decide("PreToolUse", [run({ blocked: "no" }), run({ blocked: "never" })]).block).toBe("no; never");
    const hs = (o: object) => run({ json: { hookSpecificOutput: { hookEventName: "PreToolUse", ...o } } });
    const d = decide("PreToolUse", [
      hs({ permissionDecision: "allow", updatedInput: { command: "a" } }),
      hs({ permissionDecision: "ask", permissionDecisionReason: "check", updatedInput: { command: "b" } }),
    ]);
    expect(d).toMatchObject({ permission: "ask", reason: "check", updatedInput: { command: "a" } });
    expect(
      decide("PreToolUse", [hs({ permissionDecision: "ask" }), hs({ permissionDecision: "deny" })])
        .permission,
    ).toBe("deny");
    expect(decide("PreToolUse", [run({ json: { decision: "block", reason: "old style" } })])).toMatchObject({
      permission: "deny",
      reason: "old style",
    });
  });

  it("continue:false stops; systemMessage is for the user; plain stdout is context only where documented", () => {
    const d = decide("PostToolUse", [
      run({ json: { continue: false, stopReason: "enough", systemMessage: "hi" } }),
      run({ text: "plain" }),
    ]);
    expect(d).toMatchObject({ stop: "enough", messages: ["hi"], context: [] });
    expect(decide("UserPromptSubmit", [run({ text: "plain" })]).context).toEqual(["plain"]);
    const pr = decide("PermissionRequest", [
      run({
        json: { hookSpecificOutput: { decision: { behavior: "deny", message: "no", interrupt: true } } },
      }),
    ]);
    expect(pr).toMatchObject({ permission: "deny", reason: "no", interrupt: true });
  });
});

describe("loading and trust", () => {
  const hooksFile = (command: string) =>
    JSON.stringify({
      hooks: { PreToolUse: [{ matcher: "Bash", hooks: [{ type: "command", command, timeout: 5 }] }] },
    });

  it("reads user and project files; project files carry their trust; a change is `modified`", () => {
    const home = tempDir();
    const root = tempDir();
    writeFileSync(join(home, "hooks.json"), hooksFile("user-cmd"));
    mkdirSync(join(root, ".claude"));
    writeFileSync(join(root, ".claude/settings.json"), hooksFile("project-cmd"));
    const trust = createTrustStore(home);
    let l = loadHooks({
      home,
      projectRoot: root,
      trust,
      inline: { Stop: [{ hooks: [{ type: "command", command: "inline" }] }] },
    });
    expect(l.hooks.map((h) => [h.command, h.source.scope, h.source.trust, h.timeoutSec])).toEqual([
      ["user-cmd", "user", "trusted", 5],
      ["inline", "user", "trusted", 60],
      ["project-cmd", "project", "untrusted", 5],
    ]);
    trust.trust(l.sources.filter((s) => s.scope === "project"));
    l = loadHooks({ home, projectRoot: root, trust });
    expect(l.hooks.at(-1)?.source.trust).toBe("trusted");
    expect(statSync(join(home, "hooks-trust.json")).mode & 0o777).toBe(0o600);
    writeFileSync(join(root, ".claude/settings.json"), hooksFile("project-cmd2"));
    l = loadHooks({ home, projectRoot: root, trust });
    expect(l.hooks.at(-1)?.source.trust).toBe("modified");
  });

  it("refuses a project file linked outside the project, reports bad files and skips bad parts", () => {
    const home = tempDir();
    const root = tempDir();
    const elsewhere = join(tempDir(), "hooks.json");
    writeFileSync(elsewhere, hooksFile("outside"));
    mkdirSync(join(root, ".tandem"));
    symlinkSync(elsewhere, join(root, ".tandem/hooks.json"));
    mkdirSync(join(root, ".codex"));
    writeFileSync(join(root, ".codex/hooks.json"), "{not json");
    writeFileSync(
      join(home, "hooks.json"),
      JSON.stringify({
        hooks: { SessionEnd: [], PreToolUse: [{ matcher: "(", hooks: [] }, { hooks: [{ type: "prompt" }] }] },
      }),
    );
    const l = loadHooks({ home, projectRoot: root, trust: createTrustStore(home) });
    expect(l.hooks).toEqual([]);
    expect(l.errors.map((e) => e.message).join("\n")).toMatch(/leads outside/);
    expect(l.errors.map((e) => e.message).join("\n")).toMatch(/not valid JSON/);
    expect(l.warnings.join("\n")).toMatch(/"SessionEnd" is not one Tandem fires/);
    expect(l.warnings.join("\n")).toMatch(/not a valid regular expression/);
    expect(l.warnings.join("\n")).toMatch(/hook type "prompt" is not supported/);
  });
});
