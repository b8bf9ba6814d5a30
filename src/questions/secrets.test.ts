import { mkdtempSync, readFileSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { REDACTED } from "../protocol/questions.js";
import type { SecretView as ToolSecretView } from "../tools/types.js";
import { createSecretVault } from "./secret-vault.js";
import { createSecretStore, MIN_MASK_LENGTH, secretEnvName, secretHandle } from "./secrets.js";

describe("secret store (Q10)", () => {
  it("returns a handle with a sanitised name and expands it only into env", () => {
    const secrets = createSecretStore();
    expect(secrets.put("t1", "api-key", "sk-123456")).toBe("$TANDEM_SECRET_API_KEY");
    expect(secrets.put("t1", "db.password", "hunter22")).toBe("$TANDEM_SECRET_DB_PASSWORD");
    const view: ToolSecretView = secrets.view("t1");
    expect(view.env()).toEqual({ TANDEM_SECRET_API_KEY: "sk-123456", TANDEM_SECRET_DB_PASSWORD: "hunter22" });
    expect(secrets.has("t1", "API_KEY")).toBe(true);
    expect(secretHandle("token 2")).toBe("$TANDEM_SECRET_TOKEN_2");
    expect(secretEnvName("Ünïcode")).toBe("TANDEM_SECRET__N_CODE");
    expect(() => secrets.put("t1", "--", "x")).toThrow(/letter or digit/);
  });

  it("keeps threads apart, and a view is live", () => {
    const secrets = createSecretStore();
    const view = secrets.view("t1");
    expect(view.env()).toEqual({});
    secrets.put("t1", "a", "value-one");
    secrets.put("t2", "a", "value-two");
    expect(view.env()).toEqual({ TANDEM_SECRET_A: "value-one" });
    expect(view.mask("value-one value-two")).toBe(`${REDACTED} value-two`);
  });

  it("masks every known value, longest first, including replaced ones", () => {
    const secrets = createSecretStore();
    secrets.put("t1", "short", "abcd");
    secrets.put("t1", "long", "abcdefgh");
    secrets.put("t1", "rotated", "old-secret");
    secrets.put("t1", "rotated", "new-secret");
    const { mask, env } = secrets.view("t1");
    expect(env().TANDEM_SECRET_ROTATED).toBe("new-secret");
    expect(mask("x=abcdefgh y=abcd z=old-secret w=new-secret")).toBe(
      `x=${REDACTED} y=${REDACTED} z=${REDACTED} w=${REDACTED}`,
    );
  });

  it(`does not mask values shorter than ${MIN_MASK_LENGTH} characters (they would mangle output)`, () => {
    const secrets = createSecretStore();
    secrets.put("t1", "pin", "123");
    expect(secrets.view("t1").mask("exit code 123")).toBe("exit code 123");
    expect(secrets.view("t1").env()).toEqual({ TANDEM_SECRET_PIN: "123" });
  });

  it("knows a value with surrounding whitespace both as typed and trimmed", () => {
    const secrets = createSecretStore();
    secrets.put("t1", "key", "  sk-abcdef\n");
    const { mask, env } = secrets.view("t1");
    expect(env().TANDEM_SECRET_KEY).toBe("  sk-abcdef\n"); // the command gets it as typed
    expect(mask("key=sk-abcdef;")).toBe(`key=${REDACTED};`);
  });

  it("safeCut keeps back a tail that may be the start of a secret, and never cuts through one", () => {
    const secrets = createSecretStore();
    const { safeCut } = secrets.view("t1");
    expect(safeCut("no secrets yet sk-")).toBe(18);
    secrets.put("t1", "key", "sk-SECRET-1234");
    secrets.put("t1", "other", "T-12ab");
    expect(safeCut("plain output")).toBe(12);
    expect(safeCut("abc sk-SEC")).toBe(4); // "sk-SEC" may continue as the secret
    expect(safeCut("abc sk-SECRET-1234")).toBe(18); // complete: shown (masked) now
    expect(safeCut("abc sk-SECRET-1234", 8)).toBe(4); // a cut inside a value moves before it
    expect(safeCut("abc sk-SECRET-12")).toBe(4);
    // Both "sk-SECRET-12" and its tail "T-12" may continue as a value: the longer hold wins.
    expect(safeCut("x sk-SECRET-12")).toBe(2);
    expect(safeCut("x sk-SECRET-1x")).toBe(14); // diverged: not a secret, nothing held
    expect(safeCut("")).toBe(0);
    // Property: for every split of a text, showing mask(head) and holding the rest never shows
    // a prefix of length >= 4 of the secret in the shown part at its end.
    const text = "..sk-SECRET-1234..T-12ab..sk-SECRET-12";
    for (let at = 0; at <= text.length; at++) {
      const cut = safeCut(text.slice(0, at));
      const shown = secrets.view("t1").mask(text.slice(0, cut));
      expect(shown).not.toMatch(/sk-S|T-12/);
    }
  });

  it("forgets a thread on dropThread", () => {
    const secrets = createSecretStore();
    secrets.put("t1", "a", "value-one");
    const view = secrets.view("t1");
    secrets.dropThread("t1");
    expect(secrets.threadCount).toBe(0);
    expect(view.env()).toEqual({});
    expect(view.mask("value-one")).toBe("value-one");
  });
});

/** A meta table in memory, as the store keeps it. */
function memoryMeta() {
  const rows = new Map<string, string>();
  return {
    rows,
    getMeta: (k: string) => rows.get(k),
    setMeta: (k: string, v: string) => void rows.set(k, v),
  };
}

describe("secret families and the vault", () => {
  const parents: Record<string, string> = { child: "root", grandchild: "child" };
  const family = (id: string) => {
    let at = id;
    while (parents[at]) at = parents[at];
    return at;
  };

  // fails if secrets are kept per thread: a sub-agent then prints its parent's value in clear.
  it("a family shares its secrets; a sub-agent closing drops nothing, the root closing drops all", () => {
    const secrets = createSecretStore({ family });
    secrets.put("root", "api_key", "sk-root-value");
    secrets.put("grandchild", "token", "tok-grand-value");
    for (const id of ["root", "child", "grandchild"]) {
      expect(secrets.view(id).mask("a sk-root-value b tok-grand-value")).toBe(`a ${REDACTED} b ${REDACTED}`);
      expect(secrets.has(id, "api_key")).toBe(true);
    }
    expect(secrets.view("stranger").mask("sk-root-value")).toBe("sk-root-value");
    secrets.dropThread("child");
    expect(secrets.view("child").mask("sk-root-value")).toBe(REDACTED);
    secrets.dropThread("root");
    expect(secrets.threadCount).toBe(0);
  });

  // fails if a later process (a new store over the same vault) forgets the family's values, or
  // if they are handed to commands again (env) instead of only masked.
  it("a vault keeps a family's values for masking in a later process, sealed", () => {
    const meta = memoryMeta();
    const keyFile = join(mkdtempSync(join(tmpdir(), "tandem-vault-")), "home", "secret.key");
    const first = createSecretStore({ family, vault: createSecretVault({ store: meta, keyFile }) });
    first.put("child", "api_key", "  sk-sealed-value\n");
    const sealed = [...meta.rows.values()].join("");
    expect(sealed.includes("sk-sealed-value")).toBe(false);
    expect(statSync(keyFile).mode & 0o777).toBe(0o600);
    expect(readFileSync(keyFile).length).toBe(32);

    const later = createSecretStore({ family, vault: createSecretVault({ store: meta, keyFile }) });
    expect(later.view("grandchild").mask("key=sk-sealed-value")).toBe(`key=${REDACTED}`);
    expect(later.view("root").env()).toEqual({});
    expect(later.has("root", "api_key")).toBe(false);
  });

  // fails if `refresh` does not make the next mask read the vault again (another process saved
  // values for the family since this one found nothing there), or if it drops values held here.
  it("refresh: a family another process saved values for since is masked, held values stay", () => {
    const meta = memoryMeta();
    const keyFile = join(mkdtempSync(join(tmpdir(), "tandem-vault-")), "home", "secret.key");
    const a = createSecretStore({ family, vault: createSecretVault({ store: meta, keyFile }) });
    const b = createSecretStore({ family, vault: createSecretVault({ store: meta, keyFile }) });
    expect(a.view("child").mask("sk-from-b-value")).toBe("sk-from-b-value"); // A: nothing saved yet
    b.put("grandchild", "token", "sk-from-b-value"); // another process seals a value for the family
    expect(a.view("child").mask("sk-from-b-value")).toBe("sk-from-b-value"); // A's view is stale
    a.refresh("child");
    expect(a.view("root").mask("x sk-from-b-value")).toBe(`x ${REDACTED}`);
    a.put("root", "other", "sk-held-in-a");
    b.put("root", "third", "sk-third-value");
    a.refresh("root");
    expect(a.view("child").mask("sk-held-in-a sk-third-value")).toBe(`${REDACTED} ${REDACTED}`);
    expect(a.view("root").env()).toEqual({ TANDEM_SECRET_OTHER: "sk-held-in-a" });
  });

  // fails if the vault opens without its key or under another family's name (no AAD binding).
  it("a vault without its key, or a sealed list moved to another family, masks nothing and says why", () => {
    const meta = memoryMeta();
    const dir = mkdtempSync(join(tmpdir(), "tandem-vault-"));
    const errors: string[] = [];
    const onError = (e: unknown) => errors.push(String(e));
    createSecretVault({ store: meta, keyFile: join(dir, "k1") }).save("root", ["sk-moved-value"]);
    meta.setMeta("secret_masks:other", meta.getMeta("secret_masks:root")!);
    const sameKey = createSecretVault({ store: meta, keyFile: join(dir, "k1"), onError });
    expect(sameKey.load("root")).toEqual(["sk-moved-value"]);
    expect(sameKey.load("other")).toEqual([]);
    expect(createSecretVault({ store: meta, keyFile: join(dir, "k2"), onError }).load("root")).toEqual([]);
    expect(errors).toHaveLength(2);
    expect(errors[1]).toMatch(/key that is gone/);
  });
});
