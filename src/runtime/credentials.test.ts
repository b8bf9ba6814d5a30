import { copyFileSync, mkdirSync, readFileSync, statSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { tempDir } from "../../test/helpers/index.js";
import {
  CredentialsError,
  credentialsFile,
  loadApiKey,
  removeApiKey,
  saveApiKey,
  storedProviders,
} from "./credentials.js";

const KEY = "sk-credentials-unit-0123";

describe("stored API keys", () => {
  it("round-trips per provider, sealed (the file alone holds no key), 0600", () => {
    const home = join(tempDir("tandem-cred-"), "home");
    saveApiKey(home, "openai", KEY);
    saveApiKey(home, "local", "sk-local-9876");
    expect(loadApiKey(home, "openai")).toBe(KEY);
    expect(loadApiKey(home, "local")).toBe("sk-local-9876");
    expect(loadApiKey(home, "other")).toBeUndefined();
    expect(readFileSync(credentialsFile(home), "utf8")).not.toContain(KEY);
    expect(statSync(credentialsFile(home)).mode & 0o777).toBe(0o600);
    expect(storedProviders(home).sort()).toEqual(["local", "openai"]);
    expect(removeApiKey(home, "local")).toBe(true);
    expect(removeApiKey(home, "local")).toBe(false);
    expect(storedProviders(home)).toEqual(["openai"]);
  });

  // Fails if the AAD does not bind a sealed key to its provider, or the file opens without its key.
  it("a sealed key moved to another provider's slot, or copied to another home, does not open", () => {
    const home = tempDir("tandem-cred-");
    saveApiKey(home, "openai", KEY);
    const file = JSON.parse(readFileSync(credentialsFile(home), "utf8"));
    file.keys.local = file.keys.openai;
    writeFileSync(credentialsFile(home), JSON.stringify(file));
    expect(() => loadApiKey(home, "local")).toThrow(CredentialsError);

    const other = tempDir("tandem-cred-other-");
    mkdirSync(other, { recursive: true });
    copyFileSync(credentialsFile(home), credentialsFile(other));
    expect(() => loadApiKey(other, "openai")).toThrow(/which is gone; run `tandem login` again/);
    saveApiKey(other, "x", "sk-makes-a-new-key"); // a new secret.key in `other`
    expect(() => loadApiKey(other, "openai")).toThrow(/does not open/);
  });

  it("a damaged file is an error with the fix, and logout clears it", () => {
    const home = tempDir("tandem-cred-");
    writeFileSync(credentialsFile(home), "{not json");
    expect(() => loadApiKey(home, "openai")).toThrow(/damaged .*tandem logout/);
    expect(removeApiKey(home, "openai")).toBe(true);
    expect(loadApiKey(home, "openai")).toBeUndefined();
  });
});
