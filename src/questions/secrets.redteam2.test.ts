/**
 * Red team round 2, fix 3 (secrets.ts `refresh`, called by ThreadRegistry.open): opening a
 * stored thread re-reads its family's vault view. Attacked here: whether refresh ever hands a
 * value this process did not put to commands (`env()`, `has`), including when another process
 * replaced a value under a name this process also holds, and refresh through a sub-agent whose
 * family root is not open here.
 */
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { REDACTED } from "../protocol/questions.js";
import { createSecretVault } from "./secret-vault.js";
import { createSecretStore } from "./secrets.js";

function memoryMeta() {
  const rows = new Map<string, string>();
  return { getMeta: (k: string) => rows.get(k), setMeta: (k: string, v: string) => void rows.set(k, v) };
}

const parents: Record<string, string> = { child: "root", grandchild: "child" };
const family = (id: string) => {
  let at = id;
  while (parents[at]) at = parents[at];
  return at;
};

describe("red team 2: refresh and the environment of commands", () => {
  it("refresh never puts another process's values into env() or has(), whatever order", () => {
    const meta = memoryMeta();
    const keyFile = join(mkdtempSync(join(tmpdir(), "tandem-rt2-vault-")), "secret.key");
    const a = createSecretStore({ family, vault: createSecretVault({ store: meta, keyFile }) });
    const b = createSecretStore({ family, vault: createSecretVault({ store: meta, keyFile }) });
    // B answers secrets in the family before A ever looked, and after.
    b.put("grandchild", "api_key", "sk-b-first-value");
    a.refresh("grandchild"); // A opens the sub-agent; its root is not open here
    expect(a.view("grandchild").env()).toEqual({});
    expect(a.view("root").env()).toEqual({});
    expect(a.has("child", "api_key")).toBe(false);
    expect(a.view("child").mask("x sk-b-first-value")).toBe(`x ${REDACTED}`);
    // A puts its own value under the same name; B replaces it on its side; A refreshes.
    a.put("root", "api_key", "sk-a-own-value");
    b.put("root", "api_key", "sk-b-second-value");
    b.put("root", "other", "sk-b-other-value");
    a.refresh("child");
    a.refresh("root");
    expect(a.view("grandchild").env()).toEqual({ TANDEM_SECRET_API_KEY: "sk-a-own-value" });
    expect(a.has("root", "other")).toBe(false);
    // ... and still masks everything B saved.
    expect(a.view("grandchild").mask("sk-b-second-value sk-b-other-value sk-a-own-value")).toBe(
      `${REDACTED} ${REDACTED} ${REDACTED}`,
    );
  });

  it("a dropped family (root closed here) reopened through a child: env() stays empty, masks what is saved", () => {
    const meta = memoryMeta();
    const keyFile = join(mkdtempSync(join(tmpdir(), "tandem-rt2-vault-")), "secret.key");
    const a = createSecretStore({ family, vault: createSecretVault({ store: meta, keyFile }) });
    a.put("root", "token", "sk-a-put-earlier");
    a.dropThread("root"); // the root closed here: its env values are forgotten
    a.refresh("child");
    expect(a.view("child").env()).toEqual({}); // the value is not handed to commands again
    expect(a.view("child").mask("sk-a-put-earlier")).toBe(REDACTED);
  });
});
