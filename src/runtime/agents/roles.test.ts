import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { tempDir } from "../../../test/helpers/index.js";
import { loadConfig } from "../../config/load.js";
import { describeRoles, loadRoles, parseRoleFile } from "./roles.js";

describe("agent roles", () => {
  it("[agents] in config.toml: limits beside role tables; roles listed with their descriptions", () => {
    const home = tempDir("tandem-home-");
    writeFileSync(
      join(home, "config.toml"),
      '[agents]\nmax_depth = 1\nmax_threads = 3\n[agents.reviewer]\ndescription = "Reviews a diff"\nmodel = "gpt-x"\neffort = "high"\ntools = ["exec_command"]\ninstructions = "Be terse."\n',
    );
    const { settings } = loadConfig({ home });
    // fails if the limits are read as a role or the role table is dropped
    expect(settings.agents.max_depth).toBe(1);
    expect(settings.agents.max_threads).toBe(3);
    const { roles, problems } = loadRoles(settings.agents, tempDir());
    expect(problems).toEqual([]);
    expect(roles.get("reviewer")).toMatchObject({
      description: "Reviews a diff",
      model: "gpt-x",
      effort: "high",
      tools: ["exec_command"],
      instructions: "Be terse.",
      source: "config",
    });
    expect(describeRoles(roles)).toBe(
      "- default: A general sub-agent with the parent's tools\n- reviewer: Reviews a diff (model gpt-x)",
    );
  });

  it("defaults are 2 and 6; a bad role field or name is a config error naming it", () => {
    const { settings } = loadConfig({ home: tempDir("tandem-home-") });
    expect([settings.agents.max_depth, settings.agents.max_threads]).toEqual([2, 6]);
    // fails if a typo in a role passes silently
    expect(() =>
      loadConfig({ home: tempDir("tandem-home-"), overrides: ['agents.r.effort="huge"'] }),
    ).toThrow(/effort/);
    const home = tempDir("tandem-home-");
    writeFileSync(join(home, "config.toml"), '[agents."bad name"]\ndescription = "x"\n');
    expect(() => loadConfig({ home })).toThrow(/role name/);
  });

  it(".tandem/agents/*.md: front matter and instructions; a project role overrides config; a bad file is reported, not thrown", () => {
    const cwd = tempDir();
    mkdirSync(join(cwd, ".tandem", "agents"), { recursive: true });
    writeFileSync(
      join(cwd, ".tandem", "agents", "reviewer.md"),
      "---\ndescription: 'Project reviewer'\ntools: exec_command, apply_patch\n---\nReview carefully.\n",
    );
    writeFileSync(join(cwd, ".tandem", "agents", "broken.md"), "---\nthis is not a field\n---\nx\n");
    const { settings } = loadConfig({
      home: tempDir("tandem-home-"),
      overrides: ['agents.reviewer.description="from config"'],
    });
    const { roles, problems } = loadRoles(settings.agents, cwd);
    // fails if the project file does not win over the config role of the same name
    expect(roles.get("reviewer")).toMatchObject({
      description: "Project reviewer",
      tools: ["exec_command", "apply_patch"],
      instructions: "Review carefully.",
    });
    expect(roles.has("broken")).toBe(false);
    expect(problems).toEqual([expect.stringMatching(/broken\.md: front matter line "this is not a field"/)]);
    expect(() => parseRoleFile("---\neffort: loud\n---\n", "x", "x.md")).toThrow(/effort/);
    expect(parseRoleFile("Just instructions.", "plain", "plain.md")).toMatchObject({
      name: "plain",
      instructions: "Just instructions.",
    });
  });
});
