/**
 * Which project hooks files the user trusted (README "Hooks"): remembered by the SHA-256 of the
 * file's exact content, per absolute path, in `$TANDEM_HOME/hooks-trust.json` (mode 0600). A
 * file whose content changed is `modified` — untrusted until the user trusts it again.
 *
 * Contract: `status` never throws (an unreadable or corrupt store trusts nothing); `trust`
 * writes the whole store atomically (temp file, then rename) and throws only when the home
 * cannot be written.
 */
import { chmodSync, mkdirSync, renameSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { readRegular } from "../host/files.js";

export interface TrustStore {
  status(path: string, sha256: string): "trusted" | "untrusted" | "modified";
  trust(entries: Array<{ path: string; sha256: string }>): void;
}

export const TRUST_FILE = "hooks-trust.json";

export function createTrustStore(home: string): TrustStore {
  const file = join(home, TRUST_FILE);
  const load = (): Record<string, string> => {
    const r = readRegular(file, { maxBytes: 4 << 20, noFollow: true });
    if (!r.ok) return {};
    try {
      const parsed = JSON.parse(r.data.toString("utf8")) as { trusted?: unknown };
      const t = parsed.trusted;
      if (!t || typeof t !== "object" || Array.isArray(t)) return {};
      return Object.fromEntries(Object.entries(t).filter(([, v]) => typeof v === "string")) as Record<
        string,
        string
      >;
    } catch {
      return {};
    }
  };
  return {
    status(path, sha256) {
      const known = load()[path];
      return known === sha256 ? "trusted" : known ? "modified" : "untrusted";
    },
    trust(entries) {
      const all = load();
      for (const e of entries) all[e.path] = e.sha256;
      mkdirSync(dirname(file), { recursive: true, mode: 0o700 });
      const tmp = `${file}.${process.pid}.tmp`;
      writeFileSync(tmp, `${JSON.stringify({ version: 1, trusted: all }, null, 2)}\n`, { mode: 0o600 });
      chmodSync(tmp, 0o600);
      renameSync(tmp, file);
    },
  };
}
