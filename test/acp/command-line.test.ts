/** `tandem acp` as a command: help, usage errors and startup failures never write to stdout's protocol. */
import { describe, expect, it } from "vitest";
import { runTandem } from "../helpers/cli.js";
import { tempDir } from "../helpers/index.js";

describe("tandem acp command line", () => {
  // fails if --help/-h is not the usage with its flags on stdout and exit 0, or the subcommand is
  // missing from `tandem --help`.
  it("--help and -h print the usage", async () => {
    for (const help of ["--help", "-h"]) {
      const r = await runTandem(["acp", help], { env: { TANDEM_HOME: tempDir() } });
      expect({ code: r.code, stderr: r.stderr }).toEqual({ code: 0, stderr: "" });
      expect(r.stdout).toMatch(/^Usage: tandem acp/);
      expect(r.stdout).toContain("--config");
    }
    expect((await runTandem(["--help"])).stdout).toContain("tandem acp");
  });

  // fails if an unknown option is not exit 2 naming it, or a missing API key is not exit 1 with the
  // reason on stderr — with nothing on stdout, which belongs to the protocol.
  it("usage errors exit 2, a missing key exits 1, stdout stays empty", async () => {
    const bad = await runTandem(["acp", "--frobnicate"], { env: { TANDEM_HOME: tempDir() } });
    expect(bad.code).toBe(2);
    expect(bad.stderr.split("\n")[0]).toBe("tandem acp: unknown option '--frobnicate'");
    expect(bad.stdout).toBe("");
    const nokey = await runTandem(["acp"], { env: { TANDEM_HOME: tempDir() } });
    expect(nokey.code).toBe(1);
    expect(nokey.stderr).toContain("no API key");
    expect(nokey.stdout).toBe("");
  });
});
