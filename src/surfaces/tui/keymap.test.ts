import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { createKeymap, DEFAULT_BINDINGS, defaultKeymap, loadKeymap, parseSpec } from "./keymap.js";

describe("keymap", () => {
  it("parses specs and rejects unknown modifiers and keys", () => {
    expect(parseSpec("ctrl+c")).toEqual({ ctrl: true, alt: false, shift: false, name: "c" });
    expect(() => parseSpec("hyper+x")).toThrow(/unknown modifier/);
    expect(() => parseSpec("ctrl+banana")).toThrow(/unknown key/);
  });

  it("matches Ink key reports", () => {
    const km = defaultKeymap;
    expect(km.is("composer.submit", "\r", { return: true })).toBe(true);
    expect(km.is("composer.submit", "\r", { return: true, meta: true })).toBe(false);
    expect(km.is("composer.newline", "\r", { return: true, meta: true })).toBe(true);
    expect(km.is("composer.newline", "\r", { return: true, shift: true })).toBe(true);
    expect(km.is("composer.newline", "\n", {})).toBe(true);
    expect(km.is("app.quit", "c", { ctrl: true })).toBe(true);
    expect(km.is("app.quit", "c", {})).toBe(false);
    expect(km.is("turn.interrupt", "", { escape: true, meta: true })).toBe(true);
    expect(km.is("overlay.deleteBack", "", { delete: true })).toBe(true);
    expect(km.is("overlay.pick", "7", {})).toBe(true);
    expect(km.is("overlay.pick", "0", {})).toBe(false);
    expect(km.is("confirm.yes", "Y", { shift: true })).toBe(true);
    expect(km.is("overlay.prevQuestion", "", { tab: true, shift: true })).toBe(true);
    expect(km.is("overlay.note", "", { tab: true, shift: true })).toBe(false);
    expect(km.label("composer.newline")).toBe("Alt+Enter");
    expect(km.presses("app.quit", "c", { ctrl: true })).toBe(1);
    expect(km.presses("app.quit", "\x03\x03", {})).toBe(2);
    expect(km.presses("app.quit", "cc", {})).toBe(0);
  });

  it("overrides replace an action's keys; bad entries are warnings", () => {
    const { keymap, warnings } = createKeymap({
      "turn.interrupt": ["ctrl+g"],
      nope: ["x"],
      "app.quit": ["ctrl+zz"],
    });
    expect(keymap.is("turn.interrupt", "g", { ctrl: true })).toBe(true);
    expect(keymap.is("turn.interrupt", "", { escape: true })).toBe(false);
    expect(warnings.join("\n")).toMatch(/unknown action "nope"/);
    expect(warnings.join("\n")).toMatch(/unknown key "zz"/);
  });

  it("loads $TANDEM_HOME/keybindings.json and survives a broken file", () => {
    const home = mkdtempSync(join(tmpdir(), "tui-keys-"));
    expect(loadKeymap(home).keymap.bindings).toEqual(DEFAULT_BINDINGS);
    writeFileSync(join(home, "keybindings.json"), JSON.stringify({ "composer.submit": ["ctrl+s"] }));
    expect(loadKeymap(home).keymap.is("composer.submit", "s", { ctrl: true })).toBe(true);
    writeFileSync(join(home, "keybindings.json"), "{oops");
    const broken = loadKeymap(home);
    expect(broken.warnings[0]).toMatch(/using the default keys/);
    expect(broken.keymap.bindings).toEqual(DEFAULT_BINDINGS);
  });
});
