/**
 * Where a thread family's secret values are kept between processes, so a resumed family still
 * masks them (README "Secret answers"). Only masking: a restarted process never hands them to
 * commands again (`$TANDEM_SECRET_…` needs a new answer).
 *
 * Contract:
 * - Values are never stored in clear: each family's list is sealed with AES-256-GCM under a key
 *   that lives in `$TANDEM_HOME/secret.key` (32 random bytes, mode 0600, made on the first save)
 *   and stored in the store's meta table as `secret_masks:<family id>`. The key and the store are
 *   kept apart: a copy of the database alone reveals nothing; the sandbox hides both.
 * - `load` returns the family's values, or [] when none were saved, the key is missing or the
 *   sealed data does not open (reported once through `onError`, never thrown).
 * - `save` replaces the family's list; failures are reported through `onError`, never thrown
 *   (masking in this process goes on from memory).
 */
import { createCipheriv, createDecipheriv, randomBytes } from "node:crypto";
import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { dirname } from "node:path";
import type { Store } from "../store/types.js";

export interface SecretVault {
  load(familyId: string): string[];
  save(familyId: string, values: string[]): void;
}

export interface SecretVaultOptions {
  store: Pick<Store, "getMeta" | "setMeta">;
  /** The key file (`$TANDEM_HOME/secret.key`). */
  keyFile: string;
  onError?: (err: unknown) => void;
}

const KEY_BYTES = 32;
const metaKey = (familyId: string) => `secret_masks:${familyId}`;

interface Sealed {
  v: 1;
  iv: string;
  tag: string;
  data: string;
}

export function createSecretVault(opts: SecretVaultOptions): SecretVault {
  const report = opts.onError ?? ((err) => process.emitWarning(`secret vault: ${String(err)}`));
  let key: Buffer | undefined;

  /** The key, read once; made when `create` (a save) and there is none yet. */
  const keyFor = (create: boolean): Buffer | undefined => {
    if (key) return key;
    try {
      const k = readFileSync(opts.keyFile);
      if (k.length !== KEY_BYTES) throw new Error(`${opts.keyFile} is not a ${KEY_BYTES}-byte key`);
      key = k;
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== "ENOENT") throw err;
      if (!create) return undefined;
      const k = randomBytes(KEY_BYTES);
      // "wx": two processes racing to make it — the loser reads the winner's key.
      try {
        mkdirSync(dirname(opts.keyFile), { recursive: true, mode: 0o700 });
        writeFileSync(opts.keyFile, k, { mode: 0o600, flag: "wx" });
        key = k;
      } catch (e) {
        if ((e as NodeJS.ErrnoException).code !== "EEXIST") throw e;
        return keyFor(false);
      }
    }
    return key;
  };

  return {
    load(familyId) {
      try {
        const raw = opts.store.getMeta(metaKey(familyId));
        if (!raw) return [];
        const k = keyFor(false);
        if (!k)
          throw new Error(`secrets of ${familyId} were saved under a key that is gone (${opts.keyFile})`);
        const sealed = JSON.parse(raw) as Sealed;
        const decipher = createDecipheriv("aes-256-gcm", k, Buffer.from(sealed.iv, "base64"));
        decipher.setAAD(Buffer.from(familyId));
        decipher.setAuthTag(Buffer.from(sealed.tag, "base64"));
        const clear = Buffer.concat([decipher.update(Buffer.from(sealed.data, "base64")), decipher.final()]);
        const values = JSON.parse(clear.toString("utf8"));
        return Array.isArray(values) ? values.filter((v): v is string => typeof v === "string") : [];
      } catch (err) {
        report(err);
        return [];
      }
    },
    save(familyId, values) {
      try {
        const k = keyFor(true)!;
        const iv = randomBytes(12);
        const cipher = createCipheriv("aes-256-gcm", k, iv);
        // Bound to the family: a sealed list copied under another family's key does not open.
        cipher.setAAD(Buffer.from(familyId));
        const data = Buffer.concat([cipher.update(JSON.stringify(values), "utf8"), cipher.final()]);
        const sealed: Sealed = {
          v: 1,
          iv: iv.toString("base64"),
          tag: cipher.getAuthTag().toString("base64"),
          data: data.toString("base64"),
        };
        opts.store.setMeta(metaKey(familyId), JSON.stringify(sealed));
      } catch (err) {
        report(err);
      }
    },
  };
}
