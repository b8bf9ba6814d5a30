/**
 * A recording `notify` program for tests of notifications and reply links: written in `dir`, it
 * appends each run's stdin payload (one JSON line), its last argument and its $TANDEM_REPLY_URL
 * to files beside it. Readers return what was recorded so far (complete lines only).
 */
import { chmodSync, existsSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";

export interface Notifier {
  /** The program's path, for `notify = ["…"]`. */
  program: string;
  /** Each run's stdin payload (the whole payload), parsed. */
  payloads(): any[];
  /** Each run's last argument (the payload without the reply link), parsed. */
  argv(): any[];
  /** Each run's $TANDEM_REPLY_URL ("" when unset). */
  envUrls(): string[];
}

export function recordingNotifier(dir: string): Notifier {
  const notified = join(dir, "notified.jsonl");
  const program = join(dir, "notify.sh");
  // stdin first, then the argument and the environment (readers that need those wait for them).
  writeFileSync(
    program,
    `#!/bin/sh\ncat >> ${notified}\necho >> ${notified}\nprintf '%s\\n' "$1" >> ${notified}.args\nprintf '%s\\n' "$TANDEM_REPLY_URL" >> ${notified}.env\n`,
  );
  chmodSync(program, 0o755);
  const lines = (f: string) => (existsSync(f) ? readFileSync(f, "utf8").split("\n").slice(0, -1) : []);
  return {
    program,
    payloads: () =>
      lines(notified)
        .filter(Boolean)
        .map((l) => JSON.parse(l)),
    argv: () => lines(`${notified}.args`).map((l) => JSON.parse(l)),
    envUrls: () => lines(`${notified}.env`),
  };
}

/** JSON calls to a `tandem serve` at `base()` with its bearer `token`. */
export function bearerApi(base: () => string, token: string) {
  return async (method: string, path: string, body?: unknown): Promise<{ status: number; json: any }> => {
    const r = await fetch(`${base()}${path}`, {
      method,
      headers: { authorization: `Bearer ${token}`, "content-type": "application/json" },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    });
    return { status: r.status, json: (await r.json()) as any };
  };
}
