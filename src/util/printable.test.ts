import { describe, expect, it } from "vitest";
import { printable } from "./printable.js";

describe("printable", () => {
  // Fails if a carriage return or an escape sequence reaches the terminal raw.
  it("shows control characters instead of letting them act, keeps newlines", () => {
    const spoof = "touch PWNED #\r\x1b[2Kls -la";
    const shown = printable(spoof);
    expect(shown).toBe("touch PWNED #␍␛[2Kls -la");
    expect(shown).not.toMatch(/[\r\x1b]/);
    expect(printable("cat <<EOF\nhi\nEOF")).toBe("cat <<EOF\nhi\nEOF");
    expect(printable("a\tb\x7f\x9b")).toBe("a  b␡�");
  });

  it("shows bidirectional overrides (Trojan Source)", () => {
    expect(printable("echo safe\u202e;hsab")).toBe("echo safe⟪U+202E⟫;hsab");
  });
});
