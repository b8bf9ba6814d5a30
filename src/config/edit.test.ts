import { describe, expect, it } from "vitest";
import { ConfigEditError, editConfigText } from "./edit.js";

const code = (f: () => unknown) => {
  try {
    f();
  } catch (err) {
    if (err instanceof ConfigEditError) return err.code;
    throw err;
  }
  return "no error";
};

describe("editConfigText", () => {
  // Fails if an edit rewrites other lines, drops a comment, or puts a key inside a table.
  it("changes one line, keeps comments and layout, adds new keys before the first table", () => {
    const text = [
      "# mine",
      'model = "a # not a comment"   # the model I like',
      "",
      "# network",
      "[sandbox_workspace_write]",
      "network_access = false",
      "",
    ].join("\n");
    expect(
      editConfigText(text, [
        { key: "model", value: "b" },
        { key: "model_reasoning_effort", value: "high" },
      ]),
    ).toBe(
      [
        "# mine",
        'model = "b"   # the model I like',
        'model_reasoning_effort = "high"',
        "",
        "# network",
        "[sandbox_workspace_write]",
        "network_access = false",
        "",
      ].join("\n"),
    );
  });

  it("keeps CRLF, removes a key for null, writes into an empty file", () => {
    expect(
      editConfigText('model = "a"\r\nsandbox_mode = "read-only"\r\n', [{ key: "sandbox_mode", value: null }]),
    ).toBe('model = "a"\r\n');
    expect(editConfigText("", [{ key: "approval_policy", value: "never" }])).toBe(
      'approval_policy = "never"\n',
    );
    // A key only inside a table is not the top-level key: the new one goes above the table.
    expect(editConfigText('[profiles.x]\nmodel = "p"\n', [{ key: "model", value: "m" }])).toBe(
      'model = "m"\n[profiles.x]\nmodel = "p"\n',
    );
  });

  // Fails if an unknown key, a bad value or a multi-line value is written anyway.
  it("refuses unknown keys, bad values and values it cannot edit in place", () => {
    expect(code(() => editConfigText("", [{ key: "notice.hide", value: true }]))).toBe("unknown_key");
    expect(code(() => editConfigText("", [{ key: "model_reasoning_effort", value: "extreme" }]))).toBe(
      "invalid_value",
    );
    expect(code(() => editConfigText('model = """\nx"""\n', [{ key: "model", value: "y" }]))).toBe(
      "unparsable",
    );
  });
});
