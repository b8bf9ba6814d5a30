/**
 * Codex `fuzzyFileSearch` and its session methods on Tandem's app server (README "Mention
 * files: `@`"): a real workspace with a .gitignore; results are schema-validated by the client.
 */
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { inProcessStdio, type Served } from "../helpers/app-server-client.js";
import { tempDir } from "../helpers/index.js";

describe("tandem app-server: fuzzyFileSearch", () => {
  const served: Served[] = [];
  afterEach(async () => {
    for (const s of served.splice(0)) {
      expect(s.client.violations).toEqual([]);
      expect(await s.close()).toBe(0);
    }
  });

  it("finds a file fuzzily, leaves out ignored and hidden files, and answers sessions by notification", async () => {
    const root = tempDir("tandem-fuzzy-");
    writeFileSync(join(root, "README.md"), "x");
    writeFileSync(join(root, ".gitignore"), "build/\n");
    mkdirSync(join(root, "build"));
    writeFileSync(join(root, "build", "README.generated.md"), "x");
    mkdirSync(join(root, "src"));
    writeFileSync(join(root, "src", "reader.ts"), "x");
    writeFileSync(join(root, ".readme-hidden"), "x");
    const s = inProcessStdio({
      TANDEM_HOME: tempDir("tandem-home-"),
      OPENAI_API_KEY: "k",
      OPENAI_BASE_URL: "http://127.0.0.1:9",
    });
    served.push(s);
    await s.client.initialize();
    const r = await s.client.request("fuzzyFileSearch", { query: "rea", roots: [root] });
    const paths = r.files.map((f: any) => f.path);
    expect(paths).toContain("README.md");
    expect(paths).toContain("src/reader.ts");
    expect(paths).not.toContain("build/README.generated.md");
    expect(paths).not.toContain(".readme-hidden");
    const readme = r.files.find((f: any) => f.path === "README.md");
    expect(readme).toMatchObject({ root, file_name: "README.md", match_type: "file" });
    expect(readme.indices).toEqual([0, 1, 2]);
    expect(readme.score).toBeGreaterThan(0);

    const hidden = await s.client.request("fuzzyFileSearch", { query: ".rea", roots: [root] });
    expect(hidden.files.map((f: any) => f.path)).toContain(".readme-hidden");

    expect(
      await s.client.request("fuzzyFileSearch/sessionStart", { sessionId: "s1", roots: [root] }),
    ).toEqual({});
    expect(
      await s.client.request("fuzzyFileSearch/sessionUpdate", { sessionId: "s1", query: "readme" }),
    ).toEqual({});
    const updated = await s.client.notification(
      "fuzzyFileSearch/sessionUpdated",
      (p) => p.sessionId === "s1",
    );
    expect(updated.query).toBe("readme");
    expect(updated.files[0].path).toBe("README.md");
    await s.client.notification("fuzzyFileSearch/sessionCompleted", (p) => p.sessionId === "s1");
    expect(await s.client.request("fuzzyFileSearch/sessionStop", { sessionId: "s1" })).toEqual({});
  });
});
