/**
 * The runtime's secret store (questions/secrets.ts): one set per thread family — a root thread
 * and its sub-agents, found through their parent links — sealed in the store (secret-vault.ts,
 * key in `$TANDEM_HOME/secret.key`) so a family resumed by a later process still masks its
 * values. Without a home nothing is sealed: masking then lasts as long as the process.
 */
import { join } from "node:path";
import { createSecretVault } from "../questions/secret-vault.js";
import { createSecretStore, type SecretStore } from "../questions/secrets.js";
import type { Store } from "../store/types.js";

export function familySecrets(opts: {
  home: string | undefined;
  store: Pick<Store, "getMeta" | "setMeta">;
  /** The root of a thread's family. */
  family: (threadId: string) => string;
  /** Threads never stored (their secrets are not sealed either). */
  ephemeral: (threadId: string) => boolean;
}): SecretStore {
  const vault = opts.home
    ? createSecretVault({ store: opts.store, keyFile: join(opts.home, "secret.key") })
    : undefined;
  return createSecretStore({
    family: opts.family,
    vault: vault && {
      load: (id) => vault.load(id),
      save: (id, values) => (opts.ephemeral(id) ? undefined : vault.save(id, values)),
    },
  });
}
