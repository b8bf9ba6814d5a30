import { execFileSync } from "node:child_process";
import { mkdirSync, mkdtempSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { buildCatalog } from "./catalog.js";
import { expandCommand, matchCommand, splitArgs } from "./commands.js";
import { discoverSkills, MAX_SKILL_BYTES } from "./discover.js";
import { splitFrontmatter } from "./frontmatter.js";
import { mentionedNames } from "./mentions.js";
import type { Skill } from "./types.js";
import { validateSkill } from "./validate.js";

const temp = () => mkdtempSync(join(tmpdir(), "tandem-skills-unit-"));

function skill(name: string, description = `The ${name} skill does one thing well.`): Skill {
  return {
    name,
    description,
    path: `/p/${name}/SKILL.md`,
    dir: `/p/${name}`,
    scope: "repo",
    metadata: {},
    dependencies: { env: [], mcp: [] },
  };
}

describe("frontmatter and the Agent Skills rules", () => {
  it("splits YAML frontmatter from the body; bad YAML and unclosed blocks are reasons", () => {
    expect(splitFrontmatter("---\nname: a\n---\nbody\n")).toEqual({
      ok: true,
      fields: { name: "a" },
      body: "body\n",
      present: true,
    });
    expect(splitFrontmatter("no frontmatter")).toMatchObject({
      ok: true,
      present: false,
      body: "no frontmatter",
    });
    expect(splitFrontmatter("---\nname: [a\n---\n")).toMatchObject({
      ok: false,
      reason: expect.stringContaining("invalid YAML"),
    });
    expect(splitFrontmatter("---\nname: a\n")).toMatchObject({
      ok: false,
      reason: expect.stringContaining("not closed"),
    });
    expect(splitFrontmatter("---\n- a\n---\n")).toMatchObject({
      ok: false,
      reason: expect.stringContaining("mapping"),
    });
  });

  it("enforces name and description", () => {
    const ok = (f: Record<string, unknown>, dir = "pdf") => validateSkill(f, dir).ok;
    expect(ok({ name: "pdf", description: "d" })).toBe(true);
    expect(ok({ description: "d" })).toBe(false);
    expect(ok({ name: "pdf" })).toBe(false);
    expect(ok({ name: "pdf", description: "   " })).toBe(false);
    expect(ok({ name: "PDF", description: "d" }, "PDF")).toBe(false);
    expect(ok({ name: "-pdf", description: "d" }, "-pdf")).toBe(false);
    expect(ok({ name: "pd--f", description: "d" }, "pd--f")).toBe(false);
    expect(ok({ name: "a".repeat(65), description: "d" }, "a".repeat(65))).toBe(false);
    expect(ok({ name: "pdf", description: "x".repeat(1025) })).toBe(false);
    expect(ok({ name: "other", description: "d" })).toBe(false);
  });
});

describe("the catalog budget", () => {
  it("fits everything when it can, else shortens descriptions, else leaves skills out and says so", () => {
    const few = buildCatalog([skill("a"), skill("b")], 8192);
    expect(few?.listed).toBe(2);
    expect(few?.warning).toBeUndefined();
    const long = Array.from({ length: 30 }, (_, i) => skill(`s${i}`, "word ".repeat(150)));
    const shortened = buildCatalog(long, 8192);
    expect(Buffer.byteLength(shortened?.text ?? "")).toBeLessThanOrEqual(8192);
    expect(shortened?.listed).toBe(30);
    expect(shortened?.warning).toBe(
      "skills catalog over 8192 bytes: descriptions shortened to 200 characters",
    );
    expect(shortened?.text).not.toContain("more skills not listed");
    const many = Array.from({ length: 400 }, (_, i) => skill(`skill-number-${i}`));
    const cut = buildCatalog(many, 8192);
    expect(Buffer.byteLength(cut?.text ?? "")).toBeLessThanOrEqual(8192);
    expect(cut?.listed).toBeLessThan(400);
    expect(cut?.text).toContain(`… ${400 - (cut?.listed ?? 0)} more skills not listed`);
    expect(cut?.warning).toContain(`${400 - (cut?.listed ?? 0)} of 400 skills left out`);
  });
});

describe("custom command expansion", () => {
  const cmd = { template: "Review #$1 then $2. All: $ARGUMENTS. File: $FILE. Cost: $$5. Keep $HOME." };
  it("substitutes positional, all, named arguments and $$", () => {
    expect(expandCommand(cmd, '42 "two words" FILE=a.ts')).toBe(
      'Review #42 then two words. All: 42 "two words" FILE=a.ts. File: a.ts. Cost: $5. Keep $HOME.',
    );
    expect(expandCommand(cmd, "")).toBe("Review # then . All: . File: $FILE. Cost: $5. Keep $HOME.");
    expect(splitArgs(`a 'b c' "d \\" e"`)).toEqual(["a", "b c", 'd " e']);
  });
  it("matches /name only for a known command", () => {
    const commands = [{ name: "review-pr", description: "", path: "", scope: "repo" as const, template: "" }];
    expect(matchCommand("/review-pr 42", commands)?.args).toBe("42");
    expect(matchCommand("/review-pr", commands)?.args).toBe("");
    expect(matchCommand("/etc/passwd is odd", commands)).toBeUndefined();
    expect(matchCommand("please /review-pr 1", commands)).toBeUndefined();
  });
  it("finds $name mentions, not $HOME or $1", () => {
    expect(mentionedNames("use $pdf-tools and $HOME, $1, a$b, ($docs) $pdf-tools")).toEqual([
      "pdf-tools",
      "docs",
    ]);
  });
});

describe("skill files are data (attacks)", () => {
  it("a SKILL.md that is a FIFO, a link out of the project, or huge is reported, never read or waited on", () => {
    const proj = temp();
    const outside = temp();
    const root = join(proj, ".agents", "skills");
    writeFileSync(join(outside, "secret.md"), "---\nname: linked\ndescription: stolen\n---\nSECRET\n");
    mkdirSync(join(root, "linked"), { recursive: true });
    symlinkSync(join(outside, "secret.md"), join(root, "linked", "SKILL.md"));
    mkdirSync(join(root, "fifo"), { recursive: true });
    execFileSync("mkfifo", [join(root, "fifo", "SKILL.md")]);
    mkdirSync(join(root, "huge"), { recursive: true });
    writeFileSync(
      join(root, "huge", "SKILL.md"),
      `---\nname: huge\ndescription: big\n---\n${"x".repeat(MAX_SKILL_BYTES)}`,
    );
    const r = discoverSkills({ projectDirs: [proj] });
    expect(r.skills).toEqual([]);
    const why = Object.fromEntries(r.problems.map((p) => [p.path.split("/").at(-2), p.message]));
    expect(why.linked).toContain("leads outside");
    expect(why.fifo).toContain("not a regular file");
    expect(why.huge).toContain("larger than");
  });

  it("a link to a skill folder inside the project is followed; one into a hidden path is not", () => {
    const proj = temp();
    const hidden = join(proj, "tandem-home");
    mkdirSync(join(proj, "shared", "inner"), { recursive: true });
    writeFileSync(join(proj, "shared", "inner", "SKILL.md"), "---\nname: inner\ndescription: d\n---\n");
    mkdirSync(join(hidden, "skills", "sneaky"), { recursive: true });
    writeFileSync(join(hidden, "skills", "sneaky", "SKILL.md"), "---\nname: sneaky\ndescription: d\n---\n");
    mkdirSync(join(proj, ".agents", "skills"), { recursive: true });
    symlinkSync(join(proj, "shared", "inner"), join(proj, ".agents", "skills", "inner"));
    symlinkSync(join(hidden, "skills", "sneaky"), join(proj, ".agents", "skills", "sneaky"));
    const r = discoverSkills({ projectDirs: [proj], hidden: [hidden] });
    expect(r.skills.map((s) => s.name)).toEqual(["inner"]);
    expect(r.problems).toEqual([
      {
        path: join(proj, ".agents", "skills", "sneaky"),
        message: expect.stringContaining("outside the project"),
      },
    ]);
  });
});
