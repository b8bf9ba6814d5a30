/**
 * Sealing small values at rest under Tandem's key, `$TANDEM_HOME/secret.key` (32 random bytes,
 * mode 0600): AES-256-GCM bound to a purpose string (the AAD), so a sealed value copied into
 * another slot does not open. Used by the secret vault (secret-vault.ts) and the stored API key
 * (runtime/credentials.ts). The key is kept apart from what it seals; the sandbox hides both.
 */
import { createCipheriv, createDecipheriv, randomBytes } from "node:crypto";
import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { dirname } from "node:path";

export const KEY_BYTES = 32;

export interface Sealed {
  v: 1;
  iv: string;
  tag: string;
  data: string;
}

/**
 * The key in `keyFile`; made (0600, its directory 0700) when `create` and there is none yet —
 * undefined when absent and not `create`. Two processes racing to make it agree on the winner's.
 * @throws when the file cannot be read or is not a key of KEY_BYTES bytes.
 */
export function readKey(keyFile: string, create: boolean): Buffer | undefined {
  try {
    const k = readFileSync(keyFile);
    if (k.length !== KEY_BYTES) throw new Error(`${keyFile} is not a ${KEY_BYTES}-byte key`);
    return k;
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== "ENOENT") throw err;
    if (!create) return undefined;
    const k = randomBytes(KEY_BYTES);
    try {
      mkdirSync(dirname(keyFile), { recursive: true, mode: 0o700 });
      writeFileSync(keyFile, k, { mode: 0o600, flag: "wx" });
      return k;
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code !== "EEXIST") throw e;
      return readKey(keyFile, false);
    }
  }
}

/** `clear` sealed under `key` for `purpose`. */
export function seal(key: Buffer, purpose: string, clear: string): Sealed {
  const iv = randomBytes(12);
  const cipher = createCipheriv("aes-256-gcm", key, iv);
  cipher.setAAD(Buffer.from(purpose));
  const data = Buffer.concat([cipher.update(clear, "utf8"), cipher.final()]);
  return {
    v: 1,
    iv: iv.toString("base64"),
    tag: cipher.getAuthTag().toString("base64"),
    data: data.toString("base64"),
  };
}

/** The clear text of `sealed`. @throws when it was sealed under another key or purpose, or altered. */
export function unseal(key: Buffer, purpose: string, sealed: Sealed): string {
  const decipher = createDecipheriv("aes-256-gcm", key, Buffer.from(sealed.iv, "base64"));
  decipher.setAAD(Buffer.from(purpose));
  decipher.setAuthTag(Buffer.from(sealed.tag, "base64"));
  return Buffer.concat([decipher.update(Buffer.from(sealed.data, "base64")), decipher.final()]).toString(
    "utf8",
  );
}
