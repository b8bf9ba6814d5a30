/**
 * The API key `tandem login` stores (README "First day: doctor and login"): one per provider, in
 * `$TANDEM_HOME/credentials.json` (mode 0600, never config.toml), each sealed under
 * `$TANDEM_HOME/secret.key` (questions/seal.ts) for the purpose `api_key:<provider>`. A copy of the
 * file alone reveals nothing. `createRuntime` uses it only when the environment has no key.
 *
 * Contract: values are never logged or printed; `loadApiKey` returns undefined when nothing is
 * stored and throws CredentialsError (with what to do) when something is stored but cannot be read.
 */
import { chmodSync, mkdirSync, readFileSync, renameSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { ConfigError } from "../config/load.js";
import { readKey, type Sealed, seal, unseal } from "../questions/seal.js";

export class CredentialsError extends ConfigError {}

interface CredentialsFile {
  v: 1;
  keys: Record<string, Sealed>;
}

export const credentialsFile = (home: string) => join(home, "credentials.json");
const keyFile = (home: string) => join(home, "secret.key");
const purpose = (provider: string) => `api_key:${provider}`;

function readFile(home: string): CredentialsFile | undefined {
  let text: string;
  try {
    text = readFileSync(credentialsFile(home), "utf8");
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === "ENOENT") return undefined;
    throw new CredentialsError(`cannot read ${credentialsFile(home)}: ${(err as Error).message}`);
  }
  try {
    const parsed = JSON.parse(text) as CredentialsFile;
    if (parsed?.v !== 1 || typeof parsed.keys !== "object" || parsed.keys === null)
      throw new Error("unknown format");
    return parsed;
  } catch (err) {
    throw new CredentialsError(
      `${credentialsFile(home)} is damaged (${(err as Error).message}); run \`tandem logout\` and \`tandem login\` again`,
    );
  }
}

function writeFile(home: string, file: CredentialsFile): void {
  mkdirSync(home, { recursive: true, mode: 0o700 });
  const target = credentialsFile(home);
  const tmp = `${target}.${process.pid}.tmp`;
  writeFileSync(tmp, `${JSON.stringify(file)}\n`, { mode: 0o600 });
  chmodSync(tmp, 0o600);
  renameSync(tmp, target);
}

/** Stores `apiKey` for `provider` (replacing any), making the sealing key if needed. */
export function saveApiKey(home: string, provider: string, apiKey: string): void {
  const file = readFile(home) ?? { v: 1, keys: {} };
  const key = readKey(keyFile(home), true)!;
  file.keys[provider] = seal(key, purpose(provider), apiKey);
  writeFile(home, file);
}

/** The stored key of `provider`, or undefined when none is stored (module contract). */
export function loadApiKey(home: string, provider: string): string | undefined {
  const sealed = readFile(home)?.keys[provider];
  if (!sealed) return undefined;
  const again = "run `tandem login` again";
  let key: Buffer | undefined;
  try {
    key = readKey(keyFile(home), false);
  } catch (err) {
    throw new CredentialsError(`cannot read ${keyFile(home)}: ${(err as Error).message}; ${again}`);
  }
  if (!key)
    throw new CredentialsError(
      `the stored API key was sealed with ${keyFile(home)}, which is gone; ${again}`,
    );
  try {
    return unseal(key, purpose(provider), sealed);
  } catch {
    throw new CredentialsError(
      `the stored API key for "${provider}" does not open with ${keyFile(home)}; ${again}`,
    );
  }
}

/** Providers with a stored key. */
export function storedProviders(home: string): string[] {
  return Object.keys(readFile(home)?.keys ?? {});
}

/**
 * Forgets `provider`'s key; true when there was one. The file goes with its last key, and a
 * damaged file goes whole (nothing in it can be read anyway).
 */
export function removeApiKey(home: string, provider: string): boolean {
  let file: CredentialsFile | undefined;
  try {
    file = readFile(home);
  } catch {
    rmSync(credentialsFile(home), { force: true });
    return true;
  }
  if (!file?.keys[provider]) return false;
  delete file.keys[provider];
  if (Object.keys(file.keys).length === 0) rmSync(credentialsFile(home), { force: true });
  else writeFile(home, file);
  return true;
}
