/**
 * `GET /skills?cwd=DIR`: the skills and custom commands usable in DIR (runtime.skills,
 * docs/skills.md), for the web composer's `/` and `$` suggestions. DIR must be an existing
 * absolute directory; bodies and file contents are never returned, only names, descriptions and
 * paths, and the files skipped with the reason.
 */
import { statSync } from "node:fs";
import { isAbsolute } from "node:path";
import { Hono } from "hono";
import type { Runtime } from "../../../runtime/core.js";
import { fail } from "../errors.js";

export function skillRoutes(runtime: Runtime): Hono {
  const app = new Hono();
  app.get("/", (c) => {
    const cwd = c.req.query("cwd") ?? "";
    let dir = false;
    try {
      dir = isAbsolute(cwd) && statSync(cwd).isDirectory();
    } catch {
      dir = false;
    }
    if (!dir) return fail(c, 400, "bad_request", "cwd must be an existing absolute directory (?cwd=/path)");
    const skills = runtime.skills.list(cwd);
    const commands = runtime.skills.commands(cwd);
    return c.json({
      skills: skills.skills.map((s) => ({
        name: s.name,
        description: s.shortDescription ?? s.description,
        path: s.path,
      })),
      commands: commands.commands.map((m) => ({
        name: m.name,
        description: m.description,
        argument_hint: m.argumentHint ?? null,
      })),
      problems: [...skills.problems, ...commands.problems],
    });
  });
  return app;
}
