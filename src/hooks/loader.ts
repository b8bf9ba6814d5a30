/**
 * Finds and parses the hooks that apply in a directory (README "Hooks"):
 *
 * - user: `$TANDEM_HOME/hooks.json` and the `[hooks]` tables of config.toml — trusted as the
 *   user's own configuration;
 * - project (at the project root: the git root of the thread's cwd, else the cwd):
 *   `.tandem/hooks.json`, `.codex/hooks.json` and the `hooks` key of `.claude/settings.json`, read
 *   as they are (never written). The model can write these files, so each carries its SHA-256 and
 *   trust status (trust.ts); the caller runs only trusted ones.
 *
 * Files are read through host/files.ts `readRegular` (bounded, no FIFOs, a project file whose
 * links lead outside the project is refused). A hooks file holds `{"hooks": {Event: [group…]}}`
 * (a bare `{Event: [group…]}` is accepted too); a group is `{matcher?, hooks: [{type:
 * "command", command, timeout?}]}`. Contract: never throws; what cannot be used is reported in
 * `warnings` (skipped parts) or `errors` (unusable files), never run.
 */
import { createHash } from "node:crypto";
import { join } from "node:path";
import { readRegular } from "../host/files.js";
import type { TrustStore } from "./trust.js";
import {
  DEFAULT_TIMEOUT_SEC,
  HOOK_EVENTS,
  type HookDef,
  type HookEvent,
  type HookScope,
  type HookSource,
  type LoadedHooks,
} from "./types.js";

/** Largest hooks file read. */
export const MAX_HOOKS_FILE_BYTES = 256 * 1024;

/** The project files read, relative to the project root, and how each holds its hooks. */
export const PROJECT_FILES: ReadonlyArray<{ rel: string; settings: boolean }> = [
  { rel: ".tandem/hooks.json", settings: false },
  { rel: ".codex/hooks.json", settings: false },
  { rel: ".claude/settings.json", settings: true },
];

export interface LoadOptions {
  home: string;
  /** The project root (its files are read from here); undefined: user hooks only. */
  projectRoot?: string;
  /** `[hooks]` tables of config.toml, as parsed. */
  inline?: Record<string, unknown>;
  trust: TrustStore;
}

const sha256 = (data: Buffer | string) => createHash("sha256").update(data).digest("hex");
const isObject = (v: unknown): v is Record<string, unknown> =>
  typeof v === "object" && v !== null && !Array.isArray(v);

/** Loads every hook that applies (see the module contract). */
export function loadHooks(opts: LoadOptions): LoadedHooks {
  const out: LoadedHooks = { hooks: [], sources: [], warnings: [], errors: [] };
  const userFile = join(opts.home, "hooks.json");
  readFile(out, userFile, "user", false, opts);
  if (opts.inline && Object.keys(opts.inline).length) {
    const path = join(opts.home, "config.toml");
    const source: HookSource = {
      path,
      scope: "user",
      sha256: sha256(JSON.stringify(opts.inline)),
      trust: "trusted",
    };
    out.sources.push(source);
    addEvents(out, opts.inline, source);
  }
  if (opts.projectRoot)
    for (const f of PROJECT_FILES)
      readFile(out, join(opts.projectRoot, f.rel), "project", f.settings, opts, opts.projectRoot);
  return out;
}

function readFile(
  out: LoadedHooks,
  path: string,
  scope: HookScope,
  settingsFile: boolean,
  opts: LoadOptions,
  root?: string,
): void {
  const read = readRegular(path, {
    maxBytes: MAX_HOOKS_FILE_BYTES,
    ...(root ? { within: { root } } : {}),
  });
  if (!read.ok) {
    if (read.reason !== "missing") out.errors.push({ path, message: read.message });
    return;
  }
  let parsed: unknown;
  try {
    parsed = JSON.parse(read.data.toString("utf8"));
  } catch (err) {
    out.errors.push({ path, message: `${path} is not valid JSON: ${(err as Error).message}` });
    return;
  }
  if (!isObject(parsed)) {
    out.errors.push({ path, message: `${path} must hold a JSON object` });
    return;
  }
  let events: unknown = parsed.hooks;
  // A settings file without hooks is no hooks source; a hooks file may list events at the top.
  if (events === undefined) {
    if (settingsFile) return;
    events = parsed;
  }
  if (!isObject(events)) {
    out.errors.push({ path, message: `${path}: "hooks" must be an object of events` });
    return;
  }
  const hash = sha256(read.data);
  const source: HookSource = {
    path,
    scope,
    sha256: hash,
    trust: scope === "user" ? "trusted" : opts.trust.status(path, hash),
  };
  out.sources.push(source);
  addEvents(out, events, source);
}

function addEvents(out: LoadedHooks, events: Record<string, unknown>, source: HookSource): void {
  const where = source.path;
  for (const [event, groups] of Object.entries(events)) {
    if (!(HOOK_EVENTS as readonly string[]).includes(event)) {
      out.warnings.push(`${where}: event "${event}" is not one Tandem fires; its hooks are skipped`);
      continue;
    }
    if (!Array.isArray(groups)) {
      out.warnings.push(`${where}: ${event} must be a list of matcher groups; skipped`);
      continue;
    }
    groups.forEach((group, gi) => {
      const at = `${where}: ${event}[${gi}]`;
      if (!isObject(group) || !Array.isArray(group.hooks)) {
        out.warnings.push(`${at} needs a "hooks" list; skipped`);
        return;
      }
      const matcher = group.matcher;
      if (matcher !== undefined && typeof matcher !== "string") {
        out.warnings.push(`${at}: "matcher" must be a string; skipped`);
        return;
      }
      if (matcher && matcher !== "*" && !validRegex(matcher)) {
        out.warnings.push(`${at}: matcher "${matcher}" is not a valid regular expression; skipped`);
        return;
      }
      for (const [hi, h] of (group.hooks as unknown[]).entries()) {
        const hat = `${at}.hooks[${hi}]`;
        if (!isObject(h)) {
          out.warnings.push(`${hat} is not an object; skipped`);
          continue;
        }
        if (h.type !== "command") {
          out.warnings.push(
            `${hat}: hook type "${String(h.type)}" is not supported (only "command"); skipped`,
          );
          continue;
        }
        if (typeof h.command !== "string" || !h.command.trim()) {
          out.warnings.push(`${hat}: "command" must be a non-empty string; skipped`);
          continue;
        }
        let timeoutSec = DEFAULT_TIMEOUT_SEC;
        if (h.timeout !== undefined) {
          if (typeof h.timeout !== "number" || !(h.timeout > 0))
            out.warnings.push(`${hat}: "timeout" must be a positive number of seconds; using 60`);
          else timeoutSec = h.timeout;
        }
        const def: HookDef = {
          event: event as HookEvent,
          matcher,
          command: h.command,
          timeoutSec,
          source,
          key: `${where}#${event}[${gi}].hooks[${hi}]`,
        };
        out.hooks.push(def);
      }
    });
  }
}

function validRegex(s: string): boolean {
  try {
    new RegExp(s);
    return true;
  } catch {
    return false;
  }
}
