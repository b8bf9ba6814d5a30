import { describe, expect, it } from "vitest";
import { closest, editDistance } from "./suggest.js";
import { unclosedStringColumn } from "./toml-error.js";

describe("unclosedStringColumn", () => {
  it("finds the opening quote of a string the line never closes", () => {
    expect(unclosedStringColumn('model = "gpt-5')).toBe(9);
    expect(unclosedStringColumn("a = 'x")).toBe(5);
    expect(unclosedStringColumn('a = "ok\\" still open')).toBe(5);
  });
  it("ignores closed strings, quotes in comments, and closed triple quotes", () => {
    expect(unclosedStringColumn('a = "x" # "not a string')).toBeUndefined();
    expect(unclosedStringColumn('a = "say \\"hi\\""')).toBeUndefined();
    expect(unclosedStringColumn('a = """x"""')).toBeUndefined();
    expect(unclosedStringColumn("a = 'it''s'")).toBeUndefined();
  });
});

describe("closest", () => {
  it("suggests a near known key and nothing for a far one", () => {
    expect(editDistance("modle", "model")).toBe(1);
    expect(closest("modle", ["model", "model_provider"])).toBe("model");
    expect(closest("network_acess", ["network_access", "writable_roots"])).toBe("network_access");
    expect(closest("web_search", ["model", "store", "agents"])).toBeUndefined();
  });
});

describe("closest, prefixes", () => {
  it("prefers a known key the name begins", () => {
    expect(closest("include", ["inherit", "exclude", "include_only"])).toBe("include_only");
  });
});
