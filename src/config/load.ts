/**
 * Loads settings: defaults ← `$TANDEM_HOME/config.toml` ← `--config key=value` overrides.
 *
 * `--config` values are TOML values (`model="o3"`, `questions.enabled=false`, `x=[1,2]`); a value
 * that is not valid TOML is taken as a plain string, as Codex does. Dotted keys address tables.
 * Unknown keys produce warnings (returned, for the caller to print; with a "did you mean" from
 * unknown-keys.ts) and are dropped; in the strict tables they are errors. A file that is not valid TOML is a ConfigError naming the line and
 * column (toml-error.ts).
 */
import { existsSync, readFileSync } from "node:fs";
import { homedir } from "node:os";
import { join } from "node:path";
import { parse as parseToml } from "smol-toml";
import { Settings } from "./schema.js";
import { describeTomlError } from "./toml-error.js";
import { pruneUnknown, unknownKeysMessage } from "./unknown-keys.js";

export function tandemHome(): string {
  return process.env.TANDEM_HOME || join(homedir(), ".tandem");
}

export class ConfigError extends Error {
  override name = "ConfigError";
}

export interface LoadedConfig {
  settings: Settings;
  warnings: string[];
  home: string;
}

/** Parses one `key=value` override into a nested object. */
export function parseOverride(spec: string): Record<string, unknown> {
  const eq = spec.indexOf("=");
  if (eq <= 0) throw new ConfigError(`--config expects key=value, got "${spec}"`);
  const key = spec.slice(0, eq).trim();
  const raw = spec.slice(eq + 1).trim();
  if (raw === "")
    throw new ConfigError(`--config ${key}= has no value; give a TOML value, e.g. ${key}="…" or ${key}=true`);
  let value: unknown;
  try {
    value = (parseToml(`v = ${raw}`) as { v: unknown }).v;
  } catch {
    value = raw;
  }
  const out: Record<string, unknown> = {};
  let cur = out;
  const parts = key.split(".");
  for (const p of parts.slice(0, -1)) {
    const next: Record<string, unknown> = {};
    cur[p] = next;
    cur = next;
  }
  cur[parts[parts.length - 1]] = value;
  return out;
}

function isPlain(v: unknown): v is Record<string, unknown> {
  return typeof v === "object" && v !== null && !Array.isArray(v);
}

export function deepMerge(a: Record<string, unknown>, b: Record<string, unknown>): Record<string, unknown> {
  const out: Record<string, unknown> = { ...a };
  for (const [k, v] of Object.entries(b)) out[k] = isPlain(v) && isPlain(out[k]) ? deepMerge(out[k], v) : v;
  return out;
}

/** Prints configuration warnings the way every subcommand does: `tandem CMD: warning: …`. */
export function printConfigWarnings(command: string, warnings: readonly string[]): void {
  for (const w of warnings) process.stderr.write(`tandem ${command}: warning: ${w}\n`);
}

export function loadConfig(opts: { overrides?: string[]; home?: string; file?: string } = {}): LoadedConfig {
  const home = opts.home ?? tandemHome();
  const warnings: string[] = [];
  const file = opts.file ?? join(home, "config.toml");
  let raw: Record<string, unknown> = {};
  if (existsSync(file)) {
    const text = readFileSync(file, "utf8");
    try {
      raw = parseToml(text) as Record<string, unknown>;
    } catch (err) {
      throw new ConfigError(describeTomlError(file, text, err));
    }
  }
  for (const spec of opts.overrides ?? []) raw = deepMerge(raw, parseOverride(spec));
  const result = Settings.safeParse(pruneUnknown(raw, warnings));
  if (!result.success) {
    const issues = result.error.issues.map((i) =>
      i.code === "unrecognized_keys"
        ? unknownKeysMessage(i.path, i.keys)
        : `${i.path.join(".") || "(root)"}: ${i.message}`,
    );
    throw new ConfigError(`invalid configuration: ${issues.join("; ")}`);
  }
  checkProvider(result.data);
  return { settings: result.data, warnings, home };
}

/** Providers that need no `[model_providers.<id>]` table. */
export const BUILTIN_PROVIDERS = ["openai"] as const;

/** A `model_provider` that names no known provider is an error, never a silent fallback. */
function checkProvider(settings: Settings): void {
  const id = settings.model_provider;
  const known = [...BUILTIN_PROVIDERS, ...Object.keys(settings.model_providers)];
  if (known.includes(id)) return;
  throw new ConfigError(
    `unknown model_provider "${id}"; known providers: ${known.join(", ")}. ` +
      `Fix the name, or define it in config.toml as [model_providers.${id}] with base_url and env_key.`,
  );
}

/** Resolved provider: base URL, API key and wire, from settings and the environment. */
export interface ResolvedProvider {
  id: string;
  baseUrl: string;
  apiKey: string | undefined;
  envKey: string;
  wire: "responses" | "chat" | "responses_websocket";
  lite: boolean;
}

export function resolveProvider(settings: Settings, env = process.env): ResolvedProvider {
  const id = settings.model_provider;
  const p = settings.model_providers[id] ?? {};
  const isOpenAI = id === "openai";
  const envKey = p.env_key ?? "OPENAI_API_KEY";
  const apiKey =
    env[envKey] || (isOpenAI || envKey === "OPENAI_API_KEY" ? env.CODEX_API_KEY : undefined) || undefined;
  const baseUrl =
    p.base_url ??
    (isOpenAI ? (settings.openai_base_url ?? env.OPENAI_BASE_URL) : undefined) ??
    env.OPENAI_BASE_URL ??
    "https://api.openai.com/v1";
  return { id, baseUrl, apiKey, envKey, wire: p.wire ?? "responses", lite: p.lite ?? false };
}
