import { describe, expect, it } from "vitest";
import { applyEnvPolicy, DEFAULT_ENV_POLICY, type EnvPolicy, globToRegExp } from "./env-policy.js";

const policy = (over: Partial<EnvPolicy>): EnvPolicy => ({ ...DEFAULT_ENV_POLICY, ...over });

describe("env policy", () => {
  it("globs: * and ? over the whole name, case-insensitive, other characters literal", () => {
    expect(globToRegExp("*KEY*").test("my_api_key")).toBe(true);
    expect(globToRegExp("A?C").test("abc")).toBe(true);
    expect(globToRegExp("A?C").test("abbc")).toBe(false);
    expect(globToRegExp("A.C").test("ABC")).toBe(false);
    expect(globToRegExp("PATH").test("XPATH")).toBe(false);
  });

  it("follows Codex's order: inherit, default excludes, exclude, set, include_only", () => {
    const vars = { PATH: "/bin", HOME: "/h", API_KEY: "k", TANDEM_HOME: "/t", FOO: "f", BAR: "b" };
    expect(applyEnvPolicy(vars)).toEqual({ PATH: "/bin", HOME: "/h", FOO: "f", BAR: "b" });
    expect(applyEnvPolicy(vars, policy({ ignore_default_excludes: true }))).toEqual(vars);
    expect(applyEnvPolicy(vars, policy({ inherit: "core" }))).toEqual({ PATH: "/bin", HOME: "/h" });
    expect(applyEnvPolicy(vars, policy({ inherit: "none", set: { X: "1" } }))).toEqual({ X: "1" });
    expect(applyEnvPolicy(vars, policy({ exclude: ["f*"], set: { API_KEY: "set" } }))).toEqual({
      PATH: "/bin",
      HOME: "/h",
      BAR: "b",
      API_KEY: "set",
    });
    expect(applyEnvPolicy(vars, policy({ include_only: ["*a*"], set: { ZZ: "z", AA: "a" } }))).toEqual({
      PATH: "/bin",
      BAR: "b",
      AA: "a",
    });
    expect(
      applyEnvPolicy({ LLM_PASS: "p", PATH: "/bin" }, policy({ credential_vars: ["LLM_PASS"] })),
    ).toEqual({
      PATH: "/bin",
    });
  });

  it("a set key named __proto__ stays a plain entry", () => {
    const env = applyEnvPolicy({}, policy({ inherit: "none", set: JSON.parse('{"__proto__": "x"}') }));
    expect(Object.keys(env)).toEqual(["__proto__"]);
  });
});
