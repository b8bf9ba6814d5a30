/**
 * `tandem serve` for a phone, as real processes (README, "Reaching it from a phone"): the token
 * kept in $TANDEM_HOME across restarts (`--rotate-token`, `--token` and TANDEM_SERVE_TOKEN
 * winning), the QR code on stdout only, `--lan`, and HTTPS with `--tls-cert/--tls-key` with the
 * Host check still in force. No model is called: no turn is started.
 */

import { readFileSync, statSync } from "node:fs";
import { request as httpsRequest } from "node:https";
import { join } from "node:path";
import { renderUnicodeCompact } from "uqr";
import { afterEach, describe, expect, it } from "vitest";
import { runTandem, type ServeRun, spawnServe } from "../helpers/cli.js";
import { tempDir } from "../helpers/index.js";
import { makeCerts } from "../helpers/infra/tls.js";
import { missing } from "../helpers/system-tools.js";

const BASE_ENV = {
  OPENAI_API_KEY: "k",
  OPENAI_BASE_URL: "http://127.0.0.1:9/v1", // never called
  TANDEM_SERVE_TOKEN: undefined,
};

let running: ServeRun[] = [];
async function start(args: string[], env: Record<string, string | undefined>): Promise<ServeRun> {
  const run = await spawnServe(["--port", "0", ...args], { ...BASE_ENV, ...env });
  running.push(run);
  return run;
}
/** Stops it and returns everything it wrote: stdout lines and stderr. */
async function stop(run: ServeRun): Promise<{ stdout: string; stderr: string }> {
  if (run.proc.exitCode === null) {
    const exited = new Promise((r) => run.proc.once("exit", r));
    run.proc.kill("SIGTERM");
    await exited;
  }
  running = running.filter((r) => r !== run);
  return { stdout: run.lines.join("\n"), stderr: run.stderr() };
}
const tokenOf = (pageLine: string) => decodeURIComponent(/#token=([^ ]+)/.exec(pageLine)![1]);

afterEach(async () => {
  for (const r of running) await stop(r);
});

describe("tandem serve: a page link that survives restarts", () => {
  // Fails if the token is generated per start again (the second link differs), if the file is
  // not private, if --rotate-token is ignored, or if --token / TANDEM_SERVE_TOKEN stop winning.
  it("the same TANDEM_HOME gives the same link; --rotate-token a new one; --token and the env win", async () => {
    const home = tempDir("tandem-home-");
    const first = await start([], { TANDEM_HOME: home });
    const token = tokenOf(first.lines[1]);
    expect(token).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect(statSync(join(home, "serve-token")).mode & 0o777).toBe(0o600);
    const out1 = await stop(first);
    expect(out1.stderr).not.toContain(token);

    const second = await start([], { TANDEM_HOME: home });
    expect(tokenOf(second.lines[1])).toBe(token);
    const port = /:(\d+)$/.exec(second.lines[0])![1];
    expect(
      (await fetch(`http://127.0.0.1:${port}/thread`, { headers: { authorization: `Bearer ${token}` } }))
        .status,
    ).toBe(200);
    await stop(second);

    const rotated = await start(["--rotate-token"], { TANDEM_HOME: home });
    const fresh = tokenOf(rotated.lines[1]);
    expect(fresh).not.toBe(token);
    expect(readFileSync(join(home, "serve-token"), "utf8").trim()).toBe(fresh);
    await stop(rotated);

    const flagged = await start(["--token", "given-on-the-command-line"], { TANDEM_HOME: home });
    expect(tokenOf(flagged.lines[1])).toBe("given-on-the-command-line");
    await stop(flagged);
    const fromEnv = await start([], { TANDEM_HOME: home, TANDEM_SERVE_TOKEN: "given-in-the-environment" });
    expect(tokenOf(fromEnv.lines[1])).toBe("given-in-the-environment");
    await stop(fromEnv);
    // Neither replaced the kept token.
    expect(readFileSync(join(home, "serve-token"), "utf8").trim()).toBe(fresh);

    const both = await runTandem(["serve", "--rotate-token", "--token", "x-123456789"], {
      env: { TANDEM_HOME: home },
    });
    expect(both.code).toBe(2);
    expect(both.stderr).toMatch(/--rotate-token .* cannot apply with --token/);
  });

  // Fails if a token file others could read (or plant) is trusted: the planted token would then
  // open the API.
  it("a token file readable by others is not used: a new token, a warning, the planted one refused", async () => {
    const home = tempDir("tandem-home-");
    const { writeFileSync } = await import("node:fs");
    writeFileSync(join(home, "serve-token"), "planted-token-0123456789\n", { mode: 0o644 });
    const run = await start([], { TANDEM_HOME: home });
    const token = tokenOf(run.lines[1]);
    expect(token).not.toBe("planted-token-0123456789");
    const port = /:(\d+)$/.exec(run.lines[0])![1];
    const planted = await fetch(`http://127.0.0.1:${port}/thread`, {
      headers: { authorization: "Bearer planted-token-0123456789" },
    });
    expect(planted.status).toBe(401);
    const { stderr } = await stop(run);
    expect(stderr).toMatch(/warning: .*serve-token was readable or writable by other users/);
    expect(stderr).not.toContain(token);
  });
});

describe("tandem serve: QR code and --lan", () => {
  // Fails if the QR is printed when stdout is no terminal and --qr is absent, if it is not the
  // page link's, or if it (or the link) reaches stderr.
  it("--qr prints the page link's QR code on stdout only; without it (no TTY) nothing more", async () => {
    const plain = await start([], { TANDEM_HOME: tempDir("tandem-home-") });
    const a = await stop(plain);
    expect(a.stdout.split("\n")).toHaveLength(2);

    const withQr = await start(["--qr"], { TANDEM_HOME: tempDir("tandem-home-") });
    const link = withQr.lines[1].replace(/^open /, "");
    const expected = renderUnicodeCompact(link, { border: 2 });
    const end = Date.now() + 5000;
    while (!withQr.lines.join("\n").includes(expected) && Date.now() < end)
      await new Promise((r) => setTimeout(r, 20));
    const b = await stop(withQr);
    expect(b.stdout).toContain(expected);
    expect(b.stdout).toContain("a phone cannot reach this machine's loopback; start with --lan");
    expect(b.stderr).not.toContain(tokenOf(link));
    expect(b.stderr).not.toContain("█");
  });

  // Fails if --lan does not bind every interface, drops the QR, or forgets to say that plain
  // http on the LAN gets no notifications; or if it accepts --host or a short token.
  it("--lan binds 0.0.0.0, prints the LAN links and a QR, and says notifications need https", async () => {
    const run = await start(["--lan"], { TANDEM_HOME: tempDir("tandem-home-") });
    expect(run.lines[0]).toMatch(/^tandem serve listening on http:\/\/0\.0\.0\.0:\d+$/);
    const links = run.lines[1].replace(/^open /, "").split("  or  ");
    const lan = links.find((l) => !l.startsWith("http://127.0.0.1"));
    const end = Date.now() + 5000;
    while (run.lines.length < 3 && Date.now() < end) await new Promise((r) => setTimeout(r, 20));
    const out = await stop(run);
    if (lan) {
      expect(out.stdout).toContain(renderUnicodeCompact(lan, { border: 2 }));
      expect(out.stdout).toContain("scan with your phone");
    }
    expect(out.stderr).toContain("no service worker and no notifications");
    expect(out.stderr).toContain("--tls-cert FILE --tls-key FILE");

    const home = tempDir("tandem-home-");
    const withHost = await runTandem(["serve", "--lan", "--host", "127.0.0.1"], {
      env: { TANDEM_HOME: home },
    });
    expect(withHost.code).toBe(2);
    expect(withHost.stderr).toContain("give --lan or --host, not both");
    const short = await runTandem(["serve", "--lan", "--token", "short-123"], { env: { TANDEM_HOME: home } });
    expect(short.code).toBe(2);
    expect(short.stderr).toContain("--lan needs a token of 16 or more characters");
  });
});

/** GET over HTTPS trusting `ca`, with an optional Host header: the status, or the error code. */
function getTls(url: string, ca: string, headers: Record<string, string>): Promise<number | string> {
  return new Promise((res) => {
    const req = httpsRequest(url, { ca: readFileSync(ca), headers, servername: "localhost" }, (r) => {
      r.resume();
      r.on("end", () => res(r.statusCode ?? 0));
    });
    req.on("error", (e: NodeJS.ErrnoException) => res(e.code ?? e.message));
    req.end();
  });
}

describe.skipIf(missing("openssl").length > 0)("tandem serve: HTTPS", () => {
  // Fails if the certificate flags are ignored (plain http), if only one of them is accepted,
  // or if HTTPS bypasses the Host check (DNS rebinding).
  it("--tls-cert/--tls-key serve https:// links; the Host check still refuses other names", async () => {
    const certs = makeCerts()!;
    const run = await start(
      ["--tls-cert", certs.serverCert, "--tls-key", certs.serverKey, "--token", "tls-test-token-123"],
      {
        TANDEM_HOME: tempDir("tandem-home-"),
      },
    );
    const m = /^tandem serve listening on (https:\/\/127\.0\.0\.1:\d+)$/.exec(run.lines[0]);
    expect(m, run.lines[0]).not.toBeNull();
    expect(run.lines[1]).toBe(`open ${m![1]}/#token=tls-test-token-123`);
    const auth = { authorization: "Bearer tls-test-token-123" };
    expect(await getTls(`${m![1]}/thread`, certs.ca, auth)).toBe(200);
    expect(await getTls(`${m![1]}/thread`, certs.ca, {})).toBe(401);
    expect(await getTls(`${m![1]}/thread`, certs.ca, { ...auth, host: "evil.example" })).toBe(421);
    // Plain http on the same port gets no answer from the API.
    const plain = await fetch(`${m![1].replace("https:", "http:")}/thread`, { headers: auth }).then(
      (r) => r.status,
      () => "refused",
    );
    expect(plain).not.toBe(200);
    await stop(run);

    const half = await runTandem(["serve", "--tls-cert", certs.serverCert], {
      env: { TANDEM_HOME: tempDir() },
    });
    expect(half.code).toBe(2);
    expect(half.stderr).toContain("--tls-cert and --tls-key go together");
    const bad = await runTandem(["serve", "--tls-cert", "/nonexistent.pem", "--tls-key", certs.serverKey], {
      env: { TANDEM_HOME: tempDir() },
    });
    expect(bad.code).toBe(2);
    expect(bad.stderr).toContain("cannot read the TLS certificate or key");
  });
});
