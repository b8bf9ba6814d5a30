import { describe, expect, it } from "vitest";
import * as z from "zod";
import { OutputBuffer } from "./buffer.js";
import {
  EXEC_COMMAND_WIRE,
  ExecCommandArgs,
  outputTokens,
  WriteStdinArgs,
  writeStdinWire,
  yieldMs,
} from "./schema.js";

/** The seed's fixture (seed 002), verbatim. */
const GOLDEN = `{"type":"object","properties":{"cmd":{"type":"string","description":"Shell command to execute."},"workdir":{"type":"string","description":"Working directory for the command. Defaults to the turn cwd."},"tty":{"type":"boolean","description":"True allocates a PTY for the command; false or omitted uses plain pipes."},"yield_time_ms":{"type":"number","description":"Wait before yielding output. Defaults to 10000 ms; effective range is 250-30000 ms."},"max_output_tokens":{"type":"number","description":"Output token budget. Defaults to 10000 tokens; larger requests may be capped by policy."},"shell":{"type":"string","description":"Shell binary to launch. Defaults to the user's default shell."},"sandbox_permissions":{"type":"string","enum":["use_default","require_escalated"],"description":"Per-command sandbox override. Defaults to \`use_default\`; use \`require_escalated\` for unsandboxed execution."},"justification":{"type":"string","description":"User-facing approval question for require_escalated; omit otherwise."},"prefix_rule":{"type":"array","items":{"type":"string"},"description":"Reusable approval prefix for cmd, only with sandbox_permissions require_escalated."}},"required":["cmd"],"additionalProperties":false}`;

describe("exec_command schema", () => {
  it("wire schema serialises byte-for-byte like the golden fixture", () => {
    expect(JSON.stringify(EXEC_COMMAND_WIRE)).toBe(GOLDEN);
  });

  it("zod schema generates the same JSON Schema (minus $schema)", () => {
    const { $schema: _, ...generated } = z.toJSONSchema(ExecCommandArgs) as Record<string, unknown>;
    expect(generated).toEqual(JSON.parse(GOLDEN));
  });

  it("strips unknown keys and refuses wrong types", () => {
    expect(ExecCommandArgs.parse({ cmd: "ls", login: true })).toEqual({ cmd: "ls" });
    expect(ExecCommandArgs.safeParse({ cmd: 1 }).success).toBe(false);
    expect(ExecCommandArgs.safeParse({ cmd: "ls", sandbox_permissions: "root" }).success).toBe(false);
  });
});

describe("write_stdin schema", () => {
  it("is closed, requires session_id and describes every field", () => {
    const wire = writeStdinWire() as {
      required: string[];
      additionalProperties: boolean;
      properties: object;
    };
    expect(wire.required).toEqual(["session_id"]);
    expect(wire.additionalProperties).toBe(false);
    expect("$schema" in wire).toBe(false);
    for (const p of Object.values(wire.properties)) expect(p.description).toBeTruthy();
    expect(WriteStdinArgs.safeParse({ chars: "x" }).success).toBe(false);
  });
});

describe("limits", () => {
  it("clamps yields to 250..30000 and budgets to 1..100000", () => {
    expect(yieldMs(undefined, 10_000)).toBe(10_000);
    expect(yieldMs(5, 10_000)).toBe(250);
    expect(yieldMs(10 ** 9, 250)).toBe(30_000);
    expect(yieldMs(Number.NaN, 250)).toBe(250);
    expect(outputTokens(undefined)).toBe(10_000);
    expect(outputTokens(0)).toBe(1);
    expect(outputTokens(10 ** 9)).toBe(100_000);
  });
});

describe("OutputBuffer", () => {
  it("returns everything in order while under its limit", () => {
    const b = new OutputBuffer(100);
    b.append("abc");
    b.append("def");
    expect(b.take()).toEqual({ text: "abcdef", omittedBytes: 0 });
    expect(b.empty).toBe(true);
  });

  it("keeps head and tail halves and counts dropped bytes", () => {
    const b = new OutputBuffer(10);
    for (const c of "0123456789abcdefghij") b.append(c);
    expect(b.take()).toEqual({ text: "01234fghij", omittedBytes: 10 });
  });

  it("never splits a surrogate pair", () => {
    const b = new OutputBuffer(6);
    b.append("ab😀cd😀ef😀");
    const { text } = b.take();
    expect(text).not.toMatch(/[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/);
  });
});
