/**
 * DNS rebinding (README, "The Host header"): a web page on evil.example re-points its
 * name at 127.0.0.1, and the victim's browser then talks to `tandem serve` as evil.example —
 * with the page's own origin, so the browser lets it read the answers. The server must answer a
 * request whose Host is not one of its own names with nothing but a 421, before auth and before
 * any route, even when the request carries a valid token.
 *
 * Real `./bin/tandem serve` and `tandem app-server --listen ws://` processes; raw node:http
 * requests, since fetch may not set Host. The cluster probes run on real PostgreSQL and NATS.
 */
import type { ChildProcess } from "node:child_process";
import { request } from "node:http";
import { networkInterfaces } from "node:os";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import WebSocket from "ws";
import { serverEnv } from "../helpers/app-server.js";
import { type ServerProcess, wsServer } from "../helpers/app-server-client.js";
import { type MockProcess, runTandem, spawnServe, startMockProcess } from "../helpers/cli.js";
import { tempDir } from "../helpers/index.js";
import { startNats, type TestNats } from "../helpers/infra/nats.js";
import { startPostgres, type TestPostgres } from "../helpers/infra/postgres.js";
import { missing } from "../helpers/system-tools.js";

const TOKEN = "host-test-token-0123";
const AUTH = { authorization: `Bearer ${TOKEN}` };

interface Res {
  status: number;
  type: string;
  body: string;
}

/**
 * One request to `connect`:`port` with exactly `host` as the Host header. An event stream that
 * opens is not read to its end: its status and first bytes are returned.
 */
function send(
  port: number,
  path: string,
  host: string,
  opts: { method?: string; headers?: Record<string, string>; body?: string; connect?: string } = {},
): Promise<Res> {
  return new Promise((resolve, reject) => {
    const req = request(
      {
        host: opts.connect ?? "127.0.0.1",
        port,
        path,
        method: opts.method ?? "GET",
        setHost: false,
        headers: { host, ...AUTH, ...opts.headers },
      },
      (res) => {
        let body = "";
        const type = String(res.headers["content-type"] ?? "");
        res.setEncoding("utf8");
        res.on("data", (d) => {
          body += d;
          if (type.startsWith("text/event-stream")) {
            resolve({ status: res.statusCode ?? 0, type, body });
            req.destroy();
          }
        });
        res.on("end", () => resolve({ status: res.statusCode ?? 0, type, body }));
      },
    );
    req.on("error", reject);
    req.end(opts.body);
  });
}

const refused = (r: Res) => {
  expect(r.status, r.body).toBe(421);
  expect(r.type).toMatch(/^application\/json/);
  const body = JSON.parse(r.body);
  expect(body.error.code).toBe("host_not_allowed");
  expect(body.error.message).toContain("--allow-host");
  return body;
};

const model = { OPENAI_API_KEY: "test-key", OPENAI_BASE_URL: "http://127.0.0.1:9/v1" };
const servers: ChildProcess[] = [];

async function serve(args: string[]) {
  const run = await spawnServe(["--port", "0", "--token", TOKEN, ...args], {
    TANDEM_HOME: tempDir("tandem-host-home-"),
    ...model,
  });
  servers.push(run.proc);
  const port = Number(/:(\d+)$/.exec(run.lines[0])?.[1]);
  return { ...run, port };
}

afterEach(() => {
  for (const p of servers.splice(0)) if (p.exitCode === null) p.kill("SIGKILL");
});

describe("tandem serve checks the Host header", { timeout: 60_000 }, () => {
  // Fails if any route (API, SSE, web page, OpenAPI) answers a foreign Host, if the token lets
  // it through, or if the refusal comes after the route ran (a thread created anyway).
  it("Host: evil.example gets a 421 and nothing else, even with a valid token", async () => {
    const { port } = await serve([]);
    const own = `127.0.0.1:${port}`;
    const cwd = tempDir("tandem-host-cwd-");
    const created = await send(port, "/thread", own, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ cwd }),
    });
    expect(created.status, created.body).toBe(201);
    const id = JSON.parse(created.body).id as string;

    const evil = `evil.example:${port}`;
    for (const path of ["/thread", `/thread/${id}`, "/question", "/", "/index.html", "/openapi.json"]) {
      const r = await send(port, path, evil);
      refused(r);
      expect(r.body).not.toContain(id);
      expect(r.body).not.toContain("<html");
    }
    const sse = await send(port, `/event?token=${TOKEN}`, evil, { headers: {} });
    refused(sse);
    expect(sse.type).not.toContain("event-stream");
    const post = await send(port, "/thread", evil, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ cwd }),
    });
    refused(post);
    // No thread was made by the refused POST.
    expect(JSON.parse((await send(port, "/thread", own)).body).threads).toHaveLength(1);
    // The request target's own authority (absolute form) counts too.
    refused(await send(port, `http://evil.example:${port}/thread`, own));
    // Without a token the answer is still the Host refusal (checked before auth).
    refused(await send(port, "/thread", evil, { headers: { authorization: "" } }));
  });

  // Fails if a loopback name the user types (localhost, 127.0.0.1, [::1]) is refused, if the
  // page is not served to it, or if another port's name is accepted.
  it("loopback names with the server's port work; other ports do not", async () => {
    const { port } = await serve([]);
    for (const host of [`localhost:${port}`, `127.0.0.1:${port}`, `[::1]:${port}`, `LocalHost:${port}`]) {
      const r = await send(port, "/thread", host);
      expect(r.status, `${host}: ${r.body}`).toBe(200);
      expect(JSON.parse(r.body).threads).toEqual([]);
    }
    const page = await send(port, "/", `localhost:${port}`);
    expect(page.status).toBe(200);
    expect(page.body).toContain("<html");
    const sse = await send(port, `/event?token=${TOKEN}`, `localhost:${port}`);
    expect(sse.status).toBe(200);
    expect(sse.type).toContain("text/event-stream");
    refused(await send(port, "/thread", `localhost:${port + 1}`));
    refused(await send(port, "/thread", "localhost"));
    refused(await send(port, "/thread", `127.0.0.1.evil.example:${port}`));
  });

  // Fails if --allow-host is ignored, matches by suffix, or ignores a port it was given; or if a
  // malformed value is accepted instead of a usage error.
  it("--allow-host NAME (any port) and NAME:PORT (that port) are accepted; nothing else", async () => {
    const { port } = await serve(["--allow-host", "tandem.test", "--allow-host", "Other.Test:8443"]);
    for (const host of [
      `tandem.test:${port}`,
      "tandem.test",
      "tandem.test:443",
      "other.test:8443",
      `127.0.0.1:${port}`,
    ]) {
      const r = await send(port, "/thread", host);
      expect(r.status, `${host}: ${r.body}`).toBe(200);
    }
    for (const host of [
      `evil.example:${port}`,
      `sub.tandem.test:${port}`,
      `other.test:${port}`,
      "tandem.test.evil.example",
    ])
      refused(await send(port, "/thread", host));
    const bad = await runTandem(["serve", "--allow-host", "http://x/y"], {
      env: { TANDEM_HOME: tempDir("tandem-host-home-"), ...model },
    });
    expect(bad.code).toBe(2);
    expect(bad.stderr).toContain("--allow-host");
  });

  // Fails if an IPv6 loopback bind refuses its own [::1] name or accepts a foreign one.
  it("IPv6 loopback: --host ::1 accepts [::1]:PORT and localhost, refuses evil.example", async () => {
    const { port, lines } = await serve(["--host", "::1"]);
    expect(lines[0]).toContain(`http://[::1]:${port}`);
    for (const host of [`[::1]:${port}`, `localhost:${port}`]) {
      const r = await send(port, "/thread", host, { connect: "::1" });
      expect(r.status, `${host}: ${r.body}`).toBe(200);
    }
    refused(await send(port, "/thread", `evil.example:${port}`, { connect: "::1" }));
  });

  // Fails if a wildcard bind refuses the machine's own addresses (what its printed page URLs
  // use) or accepts any name at all.
  it("a wildcard bind accepts this machine's addresses, not other names", async () => {
    const { port } = await serve(["--host", "0.0.0.0"]);
    const lan = Object.values(networkInterfaces())
      .flat()
      .filter((a) => a && a.family === "IPv4")
      .map((a) => a!.address);
    for (const ip of lan) {
      const r = await send(port, "/thread", `${ip}:${port}`, { connect: ip });
      expect(r.status, `${ip}: ${r.body}`).toBe(200);
    }
    refused(await send(port, "/thread", `evil.example:${port}`));
    refused(await send(port, "/thread", `10.255.255.254:${port}`));
  });
});

/** HTTP status of a websocket upgrade to 127.0.0.1:port sent with `host`: 101 when it opened. */
function upgrade(port: number, host: string, token: string): Promise<{ status: number; body: string }> {
  return new Promise((resolve) => {
    const socket = new WebSocket(`ws://127.0.0.1:${port}`, {
      headers: { host, authorization: `Bearer ${token}` },
    });
    socket.once("unexpected-response", (_req, res) => {
      let body = "";
      res.on("data", (d) => {
        body += d;
      });
      res.on("end", () => resolve({ status: res.statusCode ?? 0, body }));
    });
    socket.once("open", () => {
      resolve({ status: 101, body: "" });
      socket.terminate();
    });
    socket.once("error", () => {});
  });
}

describe("tandem app-server --listen ws:// checks the Host header", { timeout: 60_000 }, () => {
  let mock: MockProcess | undefined;
  let server: ServerProcess | undefined;
  afterEach(async () => {
    await server?.stop();
    await mock?.stop();
    server = undefined;
  });

  // Fails if an upgrade under a foreign name opens (token or not), or the user's names do not.
  it("refuses an upgrade for evil.example with 421; loopback names and --allow-host open", async () => {
    mock = await startMockProcess({ steps: [] });
    const started = await wsServer(serverEnv(mock), ["--allow-host", "tandem.test"]);
    server = started.server;
    const token = started.token!;
    const port = Number(new URL(started.url).port);
    const evil = await upgrade(port, `evil.example:${port}`, token);
    expect(evil.status).toBe(421);
    expect(JSON.parse(evil.body).error.message).toContain("--allow-host");
    for (const host of [`127.0.0.1:${port}`, `localhost:${port}`, `[::1]:${port}`, `tandem.test:${port}`])
      expect((await upgrade(port, host, token)).status, host).toBe(101);
    expect(server.stderr()).toMatch(/refused a websocket for host "evil\.example:\d+"/);
  });
});

const noCluster = missing("postgres", "nats-server").length > 0;

describe.skipIf(noCluster)("a cluster node's probes", { timeout: 120_000 }, () => {
  let pg: TestPostgres;
  let nats: TestNats;
  beforeAll(async () => {
    [pg, nats] = await Promise.all([startPostgres(), startNats()]);
  }, 60_000);
  afterAll(async () => {
    await Promise.all([pg?.stop(), nats?.stop()]);
  });

  // Fails if a load balancer probing by an address the node does not know (NAT, a service name)
  // is refused on /healthz or /readyz — or if that exemption lets the same Host reach the API.
  it("/healthz, /readyz and /metrics answer any Host; the API does not", async () => {
    const db = pg.createDatabase("host_probe");
    const { port } = await serve(["--store", db, "--bus", nats.url, "--node-id", "probe"]);
    const lb = `10.9.8.7:${port}`;
    const health = await send(port, "/healthz", lb, { headers: {} });
    expect(health.status, health.body).toBe(200);
    expect(JSON.parse(health.body)).toMatchObject({ ok: true, node: "probe" });
    expect((await send(port, "/readyz", lb, { headers: {} })).status).toBe(200);
    expect((await send(port, "/metrics", lb, { headers: {} })).status).toBe(200);
    refused(await send(port, "/thread", lb));
  });
});
