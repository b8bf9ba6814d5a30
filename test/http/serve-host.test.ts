import { request } from "node:http";
import { afterEach, describe, expect, it } from "vitest";
import { type ServeRun, spawnServe } from "../helpers/cli.js";
import { tempDir } from "../helpers/index.js";

type Served = ServeRun;

/** Starts `tandem serve --port 0 ARGS` with no token in the environment; no model is called. */
function startServe(args: string[]): Promise<Served> {
  return spawnServe(["--port", "0", ...args], {
    TANDEM_HOME: tempDir("tandem-home-"),
    OPENAI_API_KEY: "k",
    OPENAI_BASE_URL: "http://127.0.0.1:9/v1", // never called: no turn is started
    TANDEM_SERVE_TOKEN: undefined,
  });
}

/** GET `url` (optionally with a bearer token): the status, or the connection error's code. */
function get(url: string, token?: string): Promise<{ status?: number; error?: string }> {
  return new Promise((res) => {
    const req = request(url, { headers: token ? { authorization: `Bearer ${token}` } : {} }, (r) => {
      r.resume();
      r.on("end", () => res({ status: r.statusCode }));
    });
    req.on("error", (e: NodeJS.ErrnoException) => res({ error: e.code }));
    req.end();
  });
}

describe("tandem serve --host (processes)", () => {
  let served: Served | undefined;
  afterEach(async () => {
    const p = served?.proc;
    served = undefined;
    if (p && p.exitCode === null) {
      const exited = new Promise((r) => p.once("exit", r));
      p.kill("SIGTERM");
      await exited;
    }
  });

  // Fails if --host is ignored (the server then binds 127.0.0.1: the first line names it and
  // 127.0.0.1 answers), if it binds every interface (127.0.0.1 answers too), or if a loopback
  // alias is warned about as reachable from other machines (only 127.0.0.1 counted as loopback).
  it("--host 127.0.0.2 listens there only: 127.0.0.1 at that port is refused; no exposure warning", async () => {
    served = await startServe(["--host", "127.0.0.2", "--token", "host-test-token-123"]);
    expect(served.stderr()).not.toContain("warning");
    const m = /^tandem serve listening on http:\/\/127\.0\.0\.2:(\d+)$/.exec(served.lines[0]);
    expect(m, served.lines[0]).not.toBeNull();
    const port = m![1];
    expect(served.lines[1]).toBe(`open http://127.0.0.2:${port}/#token=host-test-token-123`);
    expect(await get(`http://127.0.0.2:${port}/thread`, "host-test-token-123")).toEqual({ status: 200 });
    expect(await get(`http://127.0.0.2:${port}/thread`)).toEqual({ status: 401 });
    expect(await get(`http://127.0.0.1:${port}/thread`, "host-test-token-123")).toEqual({
      error: "ECONNREFUSED",
    });
  });

  // Fails if a non-loopback bind without --token serves the API without a token (e.g. the
  // token made optional when none is given), if the generated token is not the one printed,
  // or if the exposure warning on stderr goes.
  it("--host 0.0.0.0 without a token: a generated token guards the API; stderr warns", async () => {
    served = await startServe(["--host", "0.0.0.0"]);
    const m = /^tandem serve listening on http:\/\/0\.0\.0\.0:(\d+)$/.exec(served.lines[0]);
    expect(m, served.lines[0]).not.toBeNull();
    const port = m![1];
    // The page link: 127.0.0.1 first, then this machine's LAN addresses, each with the token.
    const links = served.lines[1].replace(/^open /, "").split("  or  ");
    expect(links[0]).toMatch(new RegExp(`^http://127\\.0\\.0\\.1:${port}/#token=[A-Za-z0-9_-]{43}$`));
    const token = decodeURIComponent(links[0].split("#token=")[1]);
    for (const link of links.slice(1))
      expect(link).toMatch(new RegExp(`^http://\\d+\\.\\d+\\.\\d+\\.\\d+:${port}/#token=${token}$`));
    expect(served.stderr()).toContain(
      "tandem serve: warning: listening on 0.0.0.0, not just this machine. Anyone who can reach it and has the token can run commands as you.",
    );
    expect(served.stderr()).not.toContain(token);
    const base = `http://127.0.0.1:${port}`;
    expect(await get(`${base}/thread`)).toEqual({ status: 401 });
    expect(await get(`${base}/thread`, "wrong-token-123456")).toEqual({ status: 401 });
    expect(await get(`${base}/question`)).toEqual({ status: 401 });
    expect(await get(`${base}/thread`, token)).toEqual({ status: 200 });
    // Reached through another address of this machine too: it is really exposed.
    if (links[1]) expect(await get(`${links[1].split("/#")[0]}/thread`, token)).toEqual({ status: 200 });
  });
});
