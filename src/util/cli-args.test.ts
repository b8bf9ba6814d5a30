import { parseArgs } from "node:util";
import { describe, expect, it } from "vitest";
import { argError, wantsHelp } from "./cli-args.js";

const options = { port: { type: "string" }, flag: { type: "boolean" } } as const;
const fail = (args: string[], allowPositionals = true) => {
  try {
    parseArgs({ args, options, allowPositionals });
  } catch (err) {
    return argError(err);
  }
  throw new Error("parsed");
};

describe("argError", () => {
  // fails if node's message (with its dangling `'-- "--frob"` hint) is passed through.
  it("rewords parseArgs errors with balanced quotes", () => {
    expect(fail(["--frob"])).toBe("unknown option '--frob'");
    expect(fail(["-x"])).toBe("unknown option '-x'");
    expect(fail(["--port"])).toBe("option '--port' needs a value");
    expect(fail(["--port", "--flag"])).toBe("option '--port' needs a value");
    expect(fail(["--flag=1"])).toBe("option '--flag' does not take a value");
    expect(fail(["word"], false)).toBe("unexpected argument 'word'");
  });

  // fails if a prompt after `--` that reads "--help" is taken as a request for help.
  it("wantsHelp stops at --", () => {
    expect(wantsHelp(["x", "-h"])).toBe(true);
    expect(wantsHelp(["--", "--help"])).toBe(false);
  });
});
