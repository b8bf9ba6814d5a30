/**
 * Throwaway TLS material for tests, made with `openssl` in a temp dir: a CA, a server
 * certificate for 127.0.0.1/localhost (and any extra IPs given) and a client certificate, all
 * signed by that CA and valid for a day. `makeCerts()` is undefined where openssl is absent.
 */
import { spawnSync } from "node:child_process";
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { hasTool } from "../system-tools.js";

export interface TestCerts {
  dir: string;
  ca: string;
  serverCert: string;
  serverKey: string;
  clientCert: string;
  clientKey: string;
}

export function makeCerts(ips: string[] = []): TestCerts | undefined {
  if (!hasTool("openssl")) return undefined;
  const dir = mkdtempSync(join(tmpdir(), "tandem-tls-"));
  const f = (name: string) => join(dir, name);
  const run = (...args: string[]) => {
    const r = spawnSync("openssl", args, { cwd: dir, encoding: "utf8" });
    if (r.status !== 0) throw new Error(`openssl ${args[0]} failed: ${r.stderr}`);
  };
  const key = (name: string) =>
    run("genpkey", "-algorithm", "EC", "-pkeyopt", "ec_paramgen_curve:P-256", "-out", f(name));
  key("ca.key");
  run(
    "req",
    "-x509",
    "-new",
    "-key",
    f("ca.key"),
    "-out",
    f("ca.pem"),
    "-days",
    "1",
    "-subj",
    "/CN=tandem test CA",
  );
  const sign = (name: string, cn: string, ext: string) => {
    key(`${name}.key`);
    run("req", "-new", "-key", f(`${name}.key`), "-out", f(`${name}.csr`), "-subj", `/CN=${cn}`);
    writeFileSync(f(`${name}.ext`), ext);
    run(
      ...["x509", "-req", "-in", f(`${name}.csr`), "-CA", f("ca.pem"), "-CAkey", f("ca.key")],
      ...["-CAcreateserial", "-out", f(`${name}.pem`), "-days", "1", "-extfile", f(`${name}.ext`)],
    );
  };
  const sans = ["IP:127.0.0.1", "DNS:localhost", ...ips.map((ip) => `IP:${ip}`)].join(",");
  sign("server", "localhost", `subjectAltName=${sans}\nextendedKeyUsage=serverAuth\n`);
  sign("client", "tandem node", "extendedKeyUsage=clientAuth\n");
  return {
    dir,
    ca: f("ca.pem"),
    serverCert: f("server.pem"),
    serverKey: f("server.key"),
    clientCert: f("client.pem"),
    clientKey: f("client.key"),
  };
}
