/**
 * The bus flags (./bus-connect.ts) against real nats-servers, one per way to authenticate:
 * user/password, token, nkey, creds file (operator mode), TLS with a private CA and client
 * certificates. Skipped with the reason where nats-server (or, for TLS, openssl) is absent.
 */
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { connect, nkeys } from "@nats-io/transport-node";
import { afterAll, describe, expect, it } from "vitest";
import { tempDir } from "../../test/helpers/index.js";
import { startNats, type TestNats } from "../../test/helpers/infra/nats.js";
import { makeOperator } from "../../test/helpers/infra/nats-jwt.js";
import { makeCerts } from "../../test/helpers/infra/tls.js";
import { missing } from "../../test/helpers/system-tools.js";
import { BusConfigError, type BusFlagValues, busSettings, connectBus } from "./bus-connect.js";

const noNats = missing("nats-server").length > 0;

/** busSettings' error message, or "" when it accepted the flags. */
function refusal(v: BusFlagValues, env: NodeJS.ProcessEnv = {}): string {
  try {
    busSettings(v, env);
    return "";
  } catch (e) {
    expect(e).toBeInstanceOf(BusConfigError);
    return (e as Error).message;
  }
}

function file(name: string, text: string): string {
  const f = join(tempDir("tandem-bus-"), name);
  writeFileSync(f, text);
  return f;
}

describe("bus flags", () => {
  // fails if a bus anyone on the network can join is accepted without saying so.
  it("refuses a bus off this machine without credentials, unless --insecure-bus", () => {
    expect(refusal({ bus: "nats://10.0.0.5:4222" })).toMatch(/no NATS credentials.*--insecure-bus/);
    expect(refusal({ bus: "nats://127.0.0.1:4222,nats://nats.internal:4222" })).toMatch(/--insecure-bus/);
    expect(refusal({ bus: "nats://10.0.0.5:4222", "insecure-bus": true })).toBe("");
    expect(refusal({ bus: "nats://127.0.0.1:4222" })).toBe("");
    expect(refusal({ bus: "nats://localhost:4222,[::1]:4223" })).toBe("");
    expect(refusal({ bus: "nats://10.0.0.5:4222" }, { TANDEM_BUS_TOKEN: "t0ken" })).toBe("");
    expect(refusal({ bus: "nats://u:p@10.0.0.5:4222" })).toBe("");
  });

  // fails if a flag that cannot work is accepted (and then silently ignored), or a message
  // shows a secret.
  it("refuses flags that cannot work, naming them and never a secret", () => {
    expect(refusal({ bus: "ws://127.0.0.1:4222" })).toMatch(/ws:\/\/ is not a NATS URL/);
    expect(refusal({ "bus-user": "u" })).toBe("--bus-user needs --bus");
    expect(refusal({ bus: "nats://127.0.0.1:4222", "bus-user": "u" })).toMatch(/TANDEM_BUS_PASSWORD/);
    expect(refusal({ bus: "nats://127.0.0.1:4222", "bus-cert": "/x" })).toMatch(
      /--bus-cert and --bus-key go together/,
    );
    expect(refusal({ bus: "nats://127.0.0.1:4222", "bus-ca": "/nonexistent/ca.pem" })).toMatch(
      /--bus-ca \/nonexistent\/ca.pem: cannot read it \(ENOENT\)/,
    );
    const notSeed = file("seed", "SECRETSTUFF-not-a-seed");
    const m = refusal({ bus: "nats://127.0.0.1:4222", "bus-nkey": notSeed });
    expect(m).toMatch(/does not hold a NATS user nkey seed/);
    expect(m).not.toContain("SECRETSTUFF");
    expect(refusal({ bus: "nats://127.0.0.1:4222", "bus-creds": file("creds", "junk") })).toMatch(
      /not a NATS credentials file/,
    );
    expect(refusal({ bus: "nats://a:1@127.0.0.1:1,nats://b:2@127.0.0.1:2" })).toMatch(
      /different credentials/,
    );
    const s = busSettings({ bus: "nats://alice:s3cret@127.0.0.1:4222" }, {})!;
    expect(s).toMatchObject({ user: "alice", pass: "s3cret", servers: ["127.0.0.1:4222"] });
    expect(s.display).toBe("nats://alice:***@127.0.0.1:4222");
    expect(busSettings({ bus: "nats://t0ken@127.0.0.1" }, {})).toMatchObject({
      token: "t0ken",
      display: "nats://***@127.0.0.1",
    });
    expect(busSettings({ bus: "tls://127.0.0.1:4443" }, {})!.tls).toEqual({});
  });
});

describe.skipIf(noNats)("bus credentials against a real nats-server", () => {
  const servers: TestNats[] = [];
  afterAll(async () => {
    await Promise.all(servers.map((s) => s.stop()));
  });
  async function server(config: string): Promise<TestNats> {
    const s = await startNats({ config });
    servers.push(s);
    return s;
  }
  const port = (s: TestNats) => `127.0.0.1:${s.port}`;
  async function connects(v: BusFlagValues, env: NodeJS.ProcessEnv = {}): Promise<true | string> {
    try {
      const nc = await connectBus(busSettings(v, env)!, "test");
      await nc.close();
      return true;
    } catch (e) {
      return (e as Error).message;
    }
  }

  // fails if a user or password given by flag, environment or URL does not reach the server,
  // or an error shows the password.
  it("user and password: in the URL, or --bus-user with TANDEM_BUS_PASSWORD", async () => {
    const s = await server('authorization { user: "node", password: "pw-0123" }');
    expect(await connects({ bus: `nats://node:pw-0123@${port(s)}` })).toBe(true);
    expect(
      await connects({ bus: `nats://${port(s)}`, "bus-user": "node" }, { TANDEM_BUS_PASSWORD: "pw-0123" }),
    ).toBe(true);
    const wrong = await connects({ bus: `nats://node:wrong-pw@${port(s)}` });
    expect(wrong).toMatch(/cannot connect to NATS at nats:\/\/node:\*\*\*@127.0.0.1:\d+: .*Authorization/i);
    expect(wrong).not.toContain("wrong-pw");
    expect(await connects({ bus: `nats://${port(s)}` })).toMatch(/Authorization/i);
  });

  // fails if TANDEM_BUS_TOKEN or a token in the URL is not sent.
  it("token: TANDEM_BUS_TOKEN or nats://TOKEN@host", async () => {
    const s = await server('authorization { token: "tok-0123456" }');
    expect(await connects({ bus: `nats://${port(s)}` }, { TANDEM_BUS_TOKEN: "tok-0123456" })).toBe(true);
    expect(await connects({ bus: `nats://tok-0123456@${port(s)}` })).toBe(true);
    expect(await connects({ bus: `nats://${port(s)}` }, { TANDEM_BUS_TOKEN: "other" })).toMatch(
      /Authorization/i,
    );
  });

  // fails if --bus-nkey's seed does not sign the server's challenge.
  it("nkey: --bus-nkey FILE", async () => {
    const user = nkeys.createUser();
    const s = await server(`authorization { users: [ { nkey: ${user.getPublicKey()} } ] }`);
    const seed = file("node.nk", `${new TextDecoder().decode(user.getSeed())}\n`);
    expect(await connects({ bus: `nats://${port(s)}`, "bus-nkey": seed })).toBe(true);
    const other = file("other.nk", new TextDecoder().decode(nkeys.createUser().getSeed()));
    expect(await connects({ bus: `nats://${port(s)}`, "bus-nkey": other })).toMatch(/Authorization/i);
  });

  // fails if --bus-creds (user JWT and seed) is not used against an operator-mode server.
  it("creds file: --bus-creds FILE", async () => {
    const op = makeOperator();
    const s = await server(op.config);
    expect(await connects({ bus: `nats://${port(s)}`, "bus-creds": file("node.creds", op.creds) })).toBe(
      true,
    );
    expect(await connects({ bus: `nats://${port(s)}` })).toMatch(/Authorization/i);
  });

  // fails if the CA, client certificate or tls:// scheme is not used: a server with a private
  // CA is trusted only through --bus-ca, and one that verifies clients admits only --bus-cert.
  it.skipIf(missing("openssl").length > 0)("TLS: tls://, --bus-ca, --bus-cert and --bus-key", async () => {
    const c = makeCerts()!;
    const tls = `tls { cert_file: "${c.serverCert}", key_file: "${c.serverKey}", ca_file: "${c.ca}"`;
    const plain = await server(`${tls} }\nauthorization { token: "tok-0123456" }`);
    const env = { TANDEM_BUS_TOKEN: "tok-0123456" };
    expect(await connects({ bus: `tls://${port(plain)}`, "bus-ca": c.ca }, env)).toBe(true);
    expect(await connects({ bus: `tls://${port(plain)}` }, env)).toMatch(/certificate/i);
    const verify = await server(`${tls}, verify: true }`);
    const client = { "bus-ca": c.ca, "bus-cert": c.clientCert, "bus-key": c.clientKey };
    expect(await connects({ bus: `nats://${port(verify)}`, ...client })).toBe(true);
    // Without a client certificate the server never completes the handshake: a raw client with
    // a short handshake timeout shows it is refused (Tandem's own would wait 20 s).
    await expect(connect({ servers: port(verify), tls: { caFile: c.ca }, timeout: 2000 })).rejects.toThrow();
  });
});
