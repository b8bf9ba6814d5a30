import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { TerminalTextStream, terminalText } from "./terminal-text.js";

/** Complete SGR sequences: the only escapes command output may keep. */
const SGR = /\x1b\[[0-9;:]{0,64}m/g;
/** What must never reach a terminal (besides the SGR kept with `sgr`): C0 but \n \t, DEL, C1, bidi. */
const UNSAFE = /[\x00-\x08\x0b-\x1f\x7f-\x9f\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069]/;

/** Strings rich in what attackers send: escapes, OSC/DCS/CSI pieces, C1, bidi, CR, and plain text. */
const hostile = fc
  .array(
    fc.oneof(
      fc.constantFrom(
        "\x1b",
        "\x1b]52;c;SGVsbG8=\x07",
        "\x1b]2;pwned\x1b\\",
        "\x1bP1$r\x1b\\",
        "\x1b_apc\x1b\\",
        "\x1b^pm\x1b\\",
        "\x1bXsos\x1b\\",
        "\x1b[2J",
        "\x1b[H",
        "\x1b[?1049h",
        "\x1b[>4;2m",
        "\x1b[31m",
        "\x1b[38;2;1;2;3m",
        "\x1b[0m",
        "\x1b[",
        "\u009b2J",
        "\u009d2;t\u0007",
        "\u202e",
        "\u2066",
        "\r",
        "\r\n",
        "\n",
        "\t",
        "\x07",
        "\x7f",
        "[31m",
        ";",
        "m",
        "␛",
      ),
      fc.string({ unit: "binary", maxLength: 6 }),
      fc.string({ maxLength: 8 }),
    ),
    { maxLength: 24 },
  )
  .map((parts) => parts.join(""));

describe("terminalText", () => {
  // Fails if any control sequence other than a kept SGR, or a bidi control, survives.
  it("leaves no escape, C0 (but \\n \\t), C1 or bidi character, except SGR when allowed", () => {
    fc.assert(
      fc.property(hostile, fc.boolean(), (text, sgr) => {
        const out = terminalText(text, { sgr });
        const rest = sgr ? out.replace(SGR, "") : out;
        expect(rest).not.toMatch(UNSAFE);
        if (!sgr) expect(out).not.toContain("\x1b");
      }),
      { numRuns: 2000 },
    );
  });

  // Fails if sanitising twice changes the text again (symbols or kept SGR re-processed).
  it("is idempotent", () => {
    fc.assert(
      fc.property(hostile, fc.boolean(), (text, sgr) => {
        const once = terminalText(text, { sgr });
        expect(terminalText(once, { sgr })).toBe(once);
      }),
      { numRuns: 2000 },
    );
  });

  // Fails if ordinary text (any language, emoji, symbols, newlines, tabs) is altered.
  it("returns printable text unchanged", () => {
    const plain = fc
      .string({ unit: "grapheme", maxLength: 40 })
      .map((s) => s.replace(new RegExp(UNSAFE.source, "g"), ""));
    fc.assert(
      fc.property(plain, fc.boolean(), (text, sgr) => {
        expect(terminalText(text, { sgr })).toBe(text);
      }),
    );
    expect(terminalText("naïve 中文 🚀\n\tend")).toBe("naïve 中文 🚀\n\tend");
  });

  // Fails if an attack sequence acts or is dropped silently instead of being shown.
  it("shows OSC, CSI, C1, lone CR and bidi as symbols; keeps SGR only for command output", () => {
    expect(terminalText("a\x1b]52;c;SGVsbG8=\x07b")).toBe("a␛]52;c;SGVsbG8=␇b");
    expect(terminalText("\x1b[2J\x1b[H\x1b[?1049h")).toBe("␛[2J␛[H␛[?1049h");
    expect(terminalText("\u009d2;t\u0007 \u009b2J")).toBe("\ufffd2;t␇ \ufffd2J");
    expect(terminalText("10%\r20%\r\nok")).toBe("10%␍20%\nok");
    expect(terminalText("safe\u202e;hsab\u2069")).toBe("safe⟪U+202E⟫;hsab⟪U+2069⟫");
    expect(terminalText("\x1b[31mred\x1b[0m")).toBe("␛[31mred␛[0m");
    expect(terminalText("\x1b[31mred\x1b[0m", { sgr: true })).toBe("\x1b[31mred\x1b[0m");
    expect(terminalText("\x1b[1;38;2;1;2;3mx\x1b[4:3m", { sgr: true })).toBe("\x1b[1;38;2;1;2;3mx\x1b[4:3m");
    // Not SGR: private parameters (xterm's modifyOtherKeys), other finals, overlong parameters.
    expect(terminalText("\x1b[>4;2m\x1b[K", { sgr: true })).toBe("␛[>4;2m␛[K");
    expect(terminalText(`\x1b[${"1".repeat(65)}m`, { sgr: true })).toBe(`␛[${"1".repeat(65)}m`);
  });
});

describe("TerminalTextStream", () => {
  // Fails if a sequence split across chunks comes out differently than whole (an SGR cut in
  // two shown as symbols, a CRLF split into ␍ + newline), or text is lost or duplicated.
  it("gives the same text as terminalText of the whole, however the chunks are cut", () => {
    fc.assert(
      fc.property(hostile, fc.array(fc.nat(), { maxLength: 6 }), fc.boolean(), (text, cuts, sgr) => {
        const points = [...new Set(cuts.map((c) => c % (text.length + 1)))].sort((a, b) => a - b);
        const stream = new TerminalTextStream({ sgr });
        let out = "";
        let at = 0;
        for (const p of [...points, text.length]) {
          out += stream.write(text.slice(at, p));
          at = p;
        }
        out += stream.end();
        const whole = terminalText(text, { sgr });
        // Plus one reset at the end when colours were passed.
        expect(out).toBe(whole + (sgr && whole.includes("\x1b[") ? "\x1b[0m" : ""));
      }),
      { numRuns: 2000 },
    );
  });

  it("holds back a partial SGR sequence and a trailing CR until the rest arrives", () => {
    const s = new TerminalTextStream({ sgr: true });
    expect(s.write("a\x1b[3")).toBe("a");
    expect(s.write("1mred\r")).toBe("\x1b[31mred");
    expect(s.write("\nb")).toBe("\nb");
    expect(s.end()).toBe("\x1b[0m");
  });
});
