/**
 * The debug log's writer (log.ts): records are JSON lines, secrets never reach the file (by value,
 * JSON-escaped, under header keys and under secret questions' ids), cuts keep both ends with a
 * marker and never show part of a secret, and nothing is written while off.
 */
import { mkdtempSync, readFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { cutMiddle, log, MAX_FIELD, MAX_STRING, REDACTED, stopLog } from "./log.js";
import { startLog } from "./log-file.js";
import { frame, safePath } from "./log-wire.js";

const SECRET = 'sk-"quoted"\\secret-7f3e';

function open(level: "debug" | "trace" = "trace"): () => any[] {
  const file = join(mkdtempSync(join(tmpdir(), "tandem-log-unit-")), "t.log");
  startLog({ surface: "test", file, env: { TANDEM_LOG: level }, warn: () => {} });
  return () =>
    readFileSync(file, "utf8")
      .split("\n")
      .filter(Boolean)
      .map((l) => JSON.parse(l));
}

afterEach(() => stopLog());

describe("debug log records", () => {
  it("writes one JSON object per line with ts, level, area, msg and the fields", () => {
    const read = open();
    log.debug("model", "request", { url: "http://x/v1", n: 3, at: new Date(0), err: new Error("boom") });
    const rec = read().at(-1);
    expect(rec).toMatchObject({ level: "debug", area: "model", msg: "request", url: "http://x/v1", n: 3 });
    expect(rec.at).toBe("1970-01-01T00:00:00.000Z");
    expect(rec.err).toEqual({ name: "Error", message: "boom" });
    expect(Date.parse(rec.ts)).not.toBeNaN();
  });

  it("masks a registered secret as typed, JSON-escaped inside a JSON text, in keys and in messages", () => {
    // fails if masking skips the escaped form: the body text holds the secret JSON-escaped.
    const read = open();
    log.secret(SECRET);
    const body = JSON.stringify({ input: [{ text: `key is ${SECRET}` }] });
    log.trace("model", `saw ${SECRET}`, { body, nested: { [SECRET]: [SECRET] } });
    const text = readFileSync(log.file!, "utf8");
    expect(text).not.toContain("7f3e");
    const rec = read().at(-1);
    expect(rec.msg).toBe(`saw ${REDACTED}`);
    expect(rec.body).toContain(`key is ${REDACTED}`);
    expect(rec.nested).toEqual({ [REDACTED]: [REDACTED] });
  });

  it("redacts header-like keys and the ids of secret questions, at any depth", () => {
    const read = open();
    log.secretKey("api_key");
    log.trace("http", "request", {
      headers: { Authorization: "Bearer abc123456", cookie: "s=1", host: "h" },
      frame: {
        id: "q_1",
        result: { answers: { api_key: { answers: ["typed-value"] }, name: { answers: ["n"] } } },
      },
    });
    const rec = read().at(-1);
    expect(rec.headers).toEqual({ Authorization: REDACTED, cookie: REDACTED, host: "h" });
    expect(rec.frame.result.answers).toEqual({ api_key: REDACTED, name: { answers: ["n"] } });
  });

  it("cuts long strings and long fields in the middle with a marker, after masking", () => {
    // fails if the cut comes first: the secret straddling the head's end would leave its start.
    const read = open();
    log.secret(SECRET);
    const headLen = Math.floor(MAX_STRING * 0.75);
    const long = `${"a".repeat(headLen - 5)}${SECRET}${"b".repeat(MAX_STRING)}`;
    log.trace("t", "long", {
      long,
      big: Array.from({ length: 2000 }, (_, i) => ({ i, pad: "x".repeat(40) })),
    });
    const rec = read().at(-1);
    expect(rec.long.length).toBeLessThan(MAX_STRING + 40);
    expect(rec.long).toMatch(/…\[\d+ characters cut\]…/);
    expect(rec.long).not.toContain('sk-"');
    expect(typeof rec.big).toBe("string");
    expect(rec.big.length).toBeLessThan(MAX_FIELD + 40);
    expect(rec.big.startsWith('[{"i":0,')).toBe(true);
    expect(rec.big.endsWith('{"i":1999,"pad":"xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx"}]')).toBe(true);
  });

  it("cutMiddle keeps short text as it is and says how much it cut", () => {
    expect(cutMiddle("short", 10)).toBe("short");
    expect(cutMiddle("0123456789abcdef", 8)).toBe("012345…[8 characters cut]…ef");
  });

  it("debug leaves trace records out; after stopLog nothing is written", () => {
    const read = open("debug");
    log.trace("t", "hidden");
    log.debug("t", "shown");
    expect(read().map((r) => r.msg)).toEqual(["started", "shown"]);
    stopLog();
    expect(log.enabled("debug")).toBe(false);
    log.debug("t", "after stop");
    expect(read().map((r) => r.msg)).toEqual(["started", "shown"]);
  });
});

describe("wire hooks", () => {
  it("frame: at debug requests and responses by method and id, notifications left out", () => {
    const read = open("debug");
    frame("app-server", "in", "stdio", '{"id":1,"method":"thread/start","params":{"cwd":"/x"}}');
    frame("app-server", "out", "stdio", '{"method":"turn/started","params":{}}');
    frame("app-server", "out", "stdio", '{"id":1,"error":{"code":-32600,"message":"bad"}}');
    const recs = read().slice(1);
    expect(recs.map((r) => [r.msg, r.method, r.id])).toEqual([
      ["request in", "thread/start", 1],
      ["response out", undefined, 1],
    ]);
    expect(recs[0].params).toBeUndefined();
    expect(recs[1].error).toEqual({ code: -32600, message: "bad" });
  });

  it("frame: at trace every frame whole; a secret question's answer is redacted in each surface's reply shape", () => {
    // fails without key redaction: these replies arrive before the broker knows the value.
    const read = open();
    log.secretKey("token");
    const replies = [
      { id: "q_1", result: { answers: { token: { answers: ["v-codex-1"] } } } }, // app-server (Codex)
      {
        id: 4,
        method: "tandem/question/reply",
        params: { reply: { answers: { token: { other: "v-tandem-2" } } } },
      },
      { jsonrpc: "2.0", id: 7, result: { action: "accept", content: { token: "v-acp-mcp-3" } } }, // ACP, MCP
    ];
    for (const r of replies) frame("x", "in", "stdio", JSON.stringify(r));
    frame("x", "in", "stdio", "not json at all");
    const text = readFileSync(log.file!, "utf8");
    for (const v of ["v-codex-1", "v-tandem-2", "v-acp-mcp-3"]) expect(text).not.toContain(v);
    const recs = read().slice(1);
    expect(recs[0].frame).toEqual({ id: "q_1", result: { answers: { token: REDACTED } } });
    expect(recs[3].frame).toBe("not json at all");
  });

  it("safePath redacts credential-like query values and keeps the rest", () => {
    expect(safePath("/event?token=abc&since=4")).toBe(`/event?token=${REDACTED}&since=4`);
    expect(safePath("/thread/1")).toBe("/thread/1");
    expect(safePath("/x?api_key=k&Auth=z")).toBe(`/x?api_key=${REDACTED}&Auth=${REDACTED}`);
  });
});
