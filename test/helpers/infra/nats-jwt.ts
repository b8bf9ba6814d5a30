/**
 * NATS decentralised auth for tests (operator mode): an operator, one account and one user,
 * their JWTs signed with nkeys (the `nkeys` module the NATS client re-exports), the server
 * configuration that trusts them (`operator` + a MEMORY resolver preloaded with the account),
 * and the user's `.creds` file text (JWT and seed) as `nsc` writes it.
 */
import { randomBytes } from "node:crypto";
import { nkeys } from "@nats-io/transport-node";

type KeyPair = ReturnType<typeof nkeys.createUser>;

const b64url = (b: Uint8Array | string) => Buffer.from(b).toString("base64url");

function jwt(issuer: KeyPair, subject: string, name: string, nats: Record<string, unknown>): string {
  const header = b64url(JSON.stringify({ typ: "JWT", alg: "ed25519-nkey" }));
  const claims = {
    jti: randomBytes(16).toString("hex").toUpperCase(),
    iat: Math.floor(Date.now() / 1000),
    iss: issuer.getPublicKey(),
    name,
    sub: subject,
    nats: { ...nats, version: 2 },
  };
  const body = b64url(JSON.stringify(claims));
  const sig = issuer.sign(new TextEncoder().encode(`${header}.${body}`));
  return `${header}.${body}.${b64url(sig)}`;
}

export interface TestOperator {
  /** nats-server configuration lines (operator, resolver). */
  config: string;
  /** The user's credentials file text. */
  creds: string;
}

export function makeOperator(): TestOperator {
  const operator = nkeys.createOperator();
  const account = nkeys.createAccount();
  const user = nkeys.createUser();
  const operatorJwt = jwt(operator, operator.getPublicKey(), "tandem-test", { type: "operator" });
  const accountJwt = jwt(operator, account.getPublicKey(), "tandem", {
    type: "account",
    limits: {
      subs: -1,
      data: -1,
      payload: -1,
      imports: -1,
      exports: -1,
      wildcards: true,
      conn: -1,
      leaf: -1,
    },
  });
  const userJwt = jwt(account, user.getPublicKey(), "node", {
    type: "user",
    pub: {},
    sub: {},
    subs: -1,
    data: -1,
    payload: -1,
  });
  const seed = new TextDecoder().decode(user.getSeed());
  const creds = [
    "-----BEGIN NATS USER JWT-----",
    userJwt,
    "------END NATS USER JWT------",
    "",
    "************************* IMPORTANT *************************",
    "NKEY Seed printed below can be used to sign and prove identity.",
    "",
    "-----BEGIN USER NKEY SEED-----",
    seed,
    "------END USER NKEY SEED------",
    "",
  ].join("\n");
  const config = [
    `operator: ${operatorJwt}`,
    "resolver: MEMORY",
    `resolver_preload: { ${account.getPublicKey()}: ${accountJwt} }`,
  ].join("\n");
  return { config, creds };
}
