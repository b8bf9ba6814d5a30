import { EventEmitter } from "node:events";
import { afterEach, describe, expect, it, vi } from "vitest";
import {
  cleanPaste,
  PASTE_END as E,
  enableBracketedPaste,
  PasteParser,
  PasteStdin,
  PASTE_START as S,
} from "./paste.js";

describe("PasteParser", () => {
  it("splits keys and one whole paste, in order", () => {
    const p = new PasteParser();
    expect(p.push(`ab${S}line 1\rline 2\r${E}\r`)).toEqual([
      { type: "keys", text: "ab" },
      { type: "paste", text: "line 1\nline 2\n" },
      { type: "keys", text: "\r" },
    ]);
    expect(p.holding).toBe(false);
  });

  it("joins a paste spread over many chunks, with markers split anywhere", () => {
    const input = `x${S}one\\\r/two\tthree${E}y${S}second${E}`;
    for (let size = 1; size <= input.length; size++) {
      const p = new PasteParser();
      const parts = [];
      for (let i = 0; i < input.length; i += size) parts.push(...p.push(input.slice(i, i + size)));
      parts.push(...p.flush());
      const keys = parts
        .filter((x) => x.type === "keys")
        .map((x) => x.text)
        .join("");
      expect(keys).toBe("xy");
      expect(parts.filter((x) => x.type === "paste").map((x) => x.text)).toEqual([
        "one\\\n/two\tthree",
        "second",
      ]);
    }
  });

  it("passes other escape sequences through and holds only marker prefixes", () => {
    const p = new PasteParser();
    expect(p.push("\x1b[A\x1b")).toEqual([{ type: "keys", text: "\x1b[A" }]);
    expect(p.holding).toBe(true);
    expect(p.flush()).toEqual([{ type: "keys", text: "\x1b" }]);
    expect(p.push("\x1b[2~")).toEqual([{ type: "keys", text: "\x1b[2~" }]);
  });

  it("delivers an unterminated paste on flush and drops the stray end marker later", () => {
    const p = new PasteParser();
    expect(p.push(`${S}half`)).toEqual([]);
    expect(p.pasting).toBe(true);
    expect(p.flush()).toEqual([{ type: "paste", text: "half" }]);
    expect(p.push(`rest${E}k`)).toEqual([{ type: "keys", text: "restk" }]);
  });

  it("an empty paste is a paste of nothing", () => {
    expect(new PasteParser().push(`${S}${E}`)).toEqual([{ type: "paste", text: "" }]);
  });
});

describe("cleanPaste", () => {
  it("normalises line breaks, strips escapes and control bytes, keeps tabs and backslashes", () => {
    expect(cleanPaste("a\r\nb\rc\n\x1b[31mred\x1b[0m\x07\td\\")).toBe("a\nb\nc\nred\td\\");
  });
});

class FakeTty extends EventEmitter {
  isTTY = true;
  data: string[] = [];
  raw: boolean[] = [];
  setEncoding() {}
  setRawMode(m: boolean) {
    this.raw.push(m);
  }
  read(): string | null {
    return this.data.shift() ?? null;
  }
  send(s: string) {
    this.data.push(s);
    this.emit("readable");
  }
}

describe("PasteStdin", () => {
  afterEach(() => vi.useRealTimers());

  async function setup() {
    const tty = new FakeTty();
    const stdin = new PasteStdin(tty, { marker: 5, idle: 50 });
    const seen: string[] = [];
    stdin.on("readable", () => {
      let c: string | null;
      // biome-ignore lint/suspicious/noAssignInExpressions: test read loop
      while ((c = stdin.read()) !== null) seen.push(`keys:${c}`);
    });
    await Promise.resolve();
    return { tty, stdin, seen };
  }

  it("gives keys to the reader and pastes to the listener, in order", async () => {
    const { tty, stdin, seen } = await setup();
    stdin.onPaste((t) => {
      seen.push(`paste:${t}`);
      return true;
    });
    tty.send(`hi${S}a\rb${E}\r`);
    expect(seen).toEqual(["keys:hi", "paste:a\nb", "keys:\r"]);
    stdin.setRawMode(true);
    expect(tty.raw).toEqual([true]);
  });

  it("a paste nobody takes arrives as typed text", async () => {
    const { tty, stdin, seen } = await setup();
    const off = stdin.onPaste(() => true);
    off();
    tty.send(`${S}plain${E}`);
    expect(seen).toEqual(["keys:plain"]);
  });

  // Fake timers drive the 5 ms marker and 50 ms idle waits exactly (real sleeps of 20 ms against
  // a 50 ms timer flaked on a busy machine). Fails if the lone Esc is held past the marker wait,
  // or an open paste is released before (or never after) the idle wait.
  it("a lone Esc is released after the marker wait; an open paste after the idle wait", async () => {
    vi.useFakeTimers();
    const { tty, stdin, seen } = await setup();
    stdin.onPaste((t) => {
      seen.push(`paste:${t}`);
      return true;
    });
    tty.send("\x1b");
    expect(seen).toEqual([]);
    vi.advanceTimersByTime(4);
    expect(seen).toEqual([]);
    vi.advanceTimersByTime(1);
    expect(seen).toEqual(["keys:\x1b"]);
    tty.send(`${S}never ends`);
    vi.advanceTimersByTime(49);
    expect(seen).toHaveLength(1);
    vi.advanceTimersByTime(1);
    expect(seen).toEqual(["keys:\x1b", "paste:never ends"]);
    stdin.dispose();
    tty.send("after");
    expect(seen).toHaveLength(2);
  });
});

describe("enableBracketedPaste", () => {
  it("writes the mode on, and off exactly once (also on process exit)", async () => {
    const { mkdtempSync, openSync, readFileSync, closeSync } = await import("node:fs");
    const { join } = await import("node:path");
    const { tmpdir } = await import("node:os");
    const file = join(mkdtempSync(join(tmpdir(), "tandem-paste-")), "out");
    const fd = openSync(file, "w");
    const before = process.listenerCount("exit");
    const off = enableBracketedPaste(fd);
    expect(process.listenerCount("exit")).toBe(before + 1);
    off();
    off();
    expect(process.listenerCount("exit")).toBe(before);
    closeSync(fd);
    expect(readFileSync(file, "utf8")).toBe("\x1b[?2004h\x1b[?2004l");
  });
});
