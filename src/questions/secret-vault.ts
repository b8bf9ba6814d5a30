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
import type { Store } from "../store/types.js";
import { readKey, type Sealed, seal, unseal } from "./seal.js";

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

const metaKey = (familyId: string) => `secret_masks:${familyId}`;

export function createSecretVault(opts: SecretVaultOptions): SecretVault {
  const report = opts.onError ?? ((err) => process.emitWarning(`secret vault: ${String(err)}`));
  let key: Buffer | undefined;

  /** The key, read once; made when `create` (a save) and there is none yet (seal.ts). */
  const keyFor = (create: boolean): Buffer | undefined => {
    key ??= readKey(opts.keyFile, create);
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
        // Bound to the family: a sealed list copied under another family's key does not open.
        const clear = unseal(k, familyId, JSON.parse(raw) as Sealed);
        const values = JSON.parse(clear);
        return Array.isArray(values) ? values.filter((v): v is string => typeof v === "string") : [];
      } catch (err) {
        report(err);
        return [];
      }
    },
    save(familyId, values) {
      try {
        const k = keyFor(true)!;
        const sealed = seal(k, familyId, JSON.stringify(values));
        opts.store.setMeta(metaKey(familyId), JSON.stringify(sealed));
      } catch (err) {
        report(err);
      }
    },
  };
}
