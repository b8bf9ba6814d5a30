/**
 * A hostile model reads Tandem's own state from inside the sandbox: `config.toml` (MCP bearer
 * headers, tokens) and the store (`state.db` and its -wal/-shm: every project's history). The
 * sandbox hides `$TANDEM_HOME` and the store's files (README "What the sandbox guarantees"):
 * plain reads, `ls`, and reads through a symbolic link the model makes in its workspace all fail,
 * wherever the home lies — outside the workspace, around it, inside it — and wherever the store
 * lies; legitimate work in the workspace goes on. `sandbox_workspace_write.readable_home = true`
 * shows the home again (read-only). apply_patch cannot read the home either: an Update of a file
 * there would put its lines in the diff.
 *
 * Real loop (harness: Runtime, SQLite, scripted model over HTTP), real bubblewrap, run as root.
 */
import { existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { type Harness, harness, outsideDir, tempDir } from "../helpers/index.js";
import { missing } from "../helpers/system-tools.js";

const hasBwrap = missing("bwrap").length === 0;

/** In config.toml (an MCP server's bearer header) and in the store (the user's prompt). */
const TOKEN = "HUSH-bearer-5e1f0c77";
const HISTORY = "HIST-marker-90ad2b1c";
const CONFIG = [
  "[mcp_servers.docs]",
  'url = "http://127.0.0.1:9/mcp"',
  "enabled = false",
  `http_headers = { Authorization = "Bearer ${TOKEN}" }`,
  "",
].join("\n");

const exec = (id: string, cmd: string) => ({
  type: "function_call" as const,
  name: "exec_command",
  call_id: id,
  arguments: { cmd },
});
const patch = (id: string, input: string) => ({
  type: "custom_tool_call" as const,
  name: "apply_patch",
  call_id: id,
  input,
});
const done = { output: [{ type: "message" as const, text: "done" }] };

function outputOf(h: Harness, callId: string): string {
  for (const body of h.model.requests as any[]) {
    const o = body.input.find(
      (i: any) =>
        (i.type === "function_call_output" || i.type === "custom_tool_call_output") && i.call_id === callId,
    );
    if (o) return typeof o.output === "string" ? o.output : JSON.stringify(o.output);
  }
  throw new Error(`no output for ${callId}`);
}

/** Each probe prints its own exit status, so one command shows every result. */
const probes = (home: string, store: string) =>
  [
    `cat ${home}/config.toml; echo rc_config=$?`,
    `ls -a ${home}; echo rc_ls=$?`,
    `cat ${store}; echo rc_db=$?`,
    `cat ${store}-wal; echo rc_wal=$?`,
    `ln -sf ${home}/config.toml link.toml && cat link.toml; echo rc_link=$?`,
    `ln -sfn ${home} home-link && ls home-link/ && cat home-link/config.toml; echo rc_dirlink=$?`,
    `ln -sf ${store} link.db && cat link.db; echo rc_dblink=$?`,
    "echo ok > work.txt && echo WORK_OK",
  ].join("; ");

const cleanup: string[] = [];

describe.skipIf(!hasBwrap)("the sandbox hides Tandem's home and store", () => {
  let h: Harness | undefined;
  afterEach(async () => {
    await h?.close();
    h = undefined;
    for (const d of cleanup.splice(0)) rmSync(d, { recursive: true, force: true });
  });

  /** One turn of `calls` on `cwd` with `home` (its config.toml holding TOKEN) and `store`. */
  async function attack(
    calls: unknown[],
    opts: { cwd: string; home: string; store?: string; overrides?: string[] },
  ): Promise<Harness> {
    mkdirSync(opts.home, { recursive: true });
    writeFileSync(join(opts.home, "config.toml"), CONFIG);
    h = await harness({
      cwd: opts.cwd,
      home: opts.home,
      store: opts.store,
      script: { steps: [{ output: calls }, done] } as any,
      overrides: ['sandbox_mode="workspace-write"', ...(opts.overrides ?? [])],
    });
    const thread = h.runtime.threads.start({ cwd: opts.cwd });
    expect((await thread.startTurn(`go ${HISTORY}`).done).status).toBe("completed");
    return h;
  }

  /** Every probe failed and showed nothing of the home or store; the workspace still works. */
  function expectHidden(out: string, cwd: string, opts: { wal: boolean }) {
    // Booleans, not toContain: a failure must not print the whole database.
    const shows = (s: string) => out.includes(s);
    expect(shows(TOKEN), "the output shows config.toml's token").toBe(false);
    expect(shows(HISTORY), "the output shows the store's history").toBe(false);
    expect(shows("SQLite format"), "the output shows a database file").toBe(false);
    expect(shows("config.toml\n"), "`ls` listed the home").toBe(false);
    const rc = (probe: string) => new RegExp(`rc_${probe}=(\\d+)`).exec(out)?.[1];
    for (const probe of ["config", "ls", "db", "link", "dirlink", "dblink", ...(opts.wal ? ["wal"] : [])])
      expect(rc(probe), `exit status of probe ${probe}`).not.toBe("0");
    expect(shows("WORK_OK"), "the workspace is writable").toBe(true);
    expect(readFileSync(join(cwd, "work.txt"), "utf8")).toBe("ok\n");
  }

  // Fails if the home is bound read-only (readable) instead of hidden, or if the store's files
  // are left visible, or a link in the workspace reaches them.
  it.each([
    ["the home under /tmp, the workspace outside it", () => ({ home: tempDir("tandem-home-"), cwd: ws() })],
    [
      "the workspace inside the home",
      () => {
        const home = tempDir("tandem-home-");
        mkdirSync(join(home, "project"));
        return { home, cwd: join(home, "project") };
      },
    ],
    [
      "the home inside the workspace",
      () => {
        const cwd = tempDir("tandem-ws-");
        return { home: join(cwd, ".tandem"), cwd };
      },
    ],
  ])("%s: cat, ls and links all fail", async (_label, place) => {
    const { home, cwd } = place();
    const store = join(home, "state.db");
    h = await attack([exec("x1", probes(home, store))], { cwd, home });
    expect(existsSync(`${store}-wal`)).toBe(true);
    expectHidden(outputOf(h, "x1"), cwd, { wal: true });
  });

  // Fails if only the home is hidden: a store elsewhere (`--store`, here inside the workspace
  // itself) and its -wal stay readable.
  it("a store outside the home is hidden too, also inside the workspace", async () => {
    const cwd = tempDir("tandem-ws-");
    const home = tempDir("tandem-home-");
    const store = join(cwd, "db", "state.db");
    mkdirSync(join(cwd, "db"));
    h = await attack([exec("x1", probes(home, store))], { cwd, home, store });
    expect(existsSync(`${store}-wal`)).toBe(true);
    expectHidden(outputOf(h, "x1"), cwd, { wal: true });
  });

  // The knob: fails if readable_home is ignored (the user asked to see the home).
  it("readable_home = true shows the home again, read-only", async () => {
    const home = tempDir("tandem-home-");
    const cwd = ws();
    h = await attack(
      [exec("x1", `cat ${home}/config.toml; echo x >> ${home}/config.toml; echo rc_write=$?`)],
      { cwd, home, overrides: ["sandbox_workspace_write.readable_home=true"] },
    );
    const out = outputOf(h, "x1");
    expect(out.includes(TOKEN), "config.toml is readable").toBe(true);
    expect(out).toMatch(/rc_write=1/);
    expect(readFileSync(join(home, "config.toml"), "utf8")).toBe(CONFIG);
  });

  // Fails if apply_patch reads a file of the home before refusing it: an Update's diff (or a
  // context mismatch) would then show the file's lines to the model.
  it("apply_patch cannot read the home through an Update, by path or through a link", async () => {
    const home = tempDir("tandem-home-");
    const cwd = ws();
    const update = (path: string) =>
      `*** Begin Patch\n*** Update File: ${path}\n@@\n-[mcp_servers.docs]\n+[mcp_servers.docs2]\n*** End Patch`;
    h = await attack(
      [
        exec("l1", `ln -s ${home}/config.toml c.toml; echo linked`),
        patch("p1", update(`${home}/config.toml`)),
      ],
      { cwd, home },
    );
    const seen = [outputOf(h, "p1"), JSON.stringify(h.events)];
    await h.close();
    h = await attack([patch("p2", update("c.toml"))], { cwd, home });
    seen.push(outputOf(h, "p2"), JSON.stringify(h.events));
    for (const text of seen)
      expect(text.includes(TOKEN), "the home's file reached the model or an event").toBe(false);
    expect(seen[0]).toMatch(/Tandem's own state/);
    expect(seen[2]).toMatch(/Tandem's own state/);
    expect(readFileSync(join(home, "config.toml"), "utf8")).toBe(CONFIG);
  });
});

/** A workspace outside /tmp (a writable root), removed after the test. */
function ws(): string {
  const d = outsideDir();
  cleanup.push(d);
  return d;
}
