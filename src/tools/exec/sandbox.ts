/**
 * OS sandbox for commands (requirements A1): on Linux every command runs under bubblewrap with the
 * policy's mounts. Never enforced by prompt text alone.
 *
 * - read-only: the whole filesystem read-only (no writable path at all), no network;
 * - workspace-write: read-only root, writable workspace roots (the thread's cwd + added
 *   dirs) and temp dirs; protected paths (each root's `.git`, Tandem's home and store) kept
 *   read-only whatever the roots (requirements A4); no network unless the policy allows it;
 * - in both: hidden paths (Tandem's home, the store's files) cannot be read or listed at all,
 *   wherever they lie; a writable root inside a hidden directory stays usable (`hideArgs`);
 * - danger-full-access: no sandbox.
 * In both sandboxed modes: a user namespace with no capabilities (so root cannot remount
 * or bind its way out), no nested user namespaces, and the seccomp filter of seccomp.ts (no
 * unix sockets to the outside). A private PID namespace with --die-with-parent: killing
 * bwrap kills every process the command started, so interrupt still reaches the whole tree.
 */
import { spawnSync } from "node:child_process";
import { existsSync, lstatSync, realpathSync, rmSync, type Stats, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { readRegularText } from "../../host/files.js";
import { hostProgram } from "../../host/run.js";
import { withFd3 } from "./process.js";
import { seccompPath } from "./seccomp.js";

export type SandboxMode = "read-only" | "workspace-write" | "danger-full-access";

export interface SandboxPolicy {
  mode: SandboxMode;
  /** Writable roots besides the cwd (workspace-write), e.g. from --add-dir. */
  writableRoots: string[];
  network: boolean;
  /** Paths never writable from the sandbox (Tandem's home, the store and its files). */
  protectedPaths?: string[];
  /** Paths the sandbox hides (Tandem's home, the store's files): see `hideArgs`. */
  hiddenPaths?: string[];
}

const found = new Map<string, string | null>();

/** Directories anyone's sandboxed command may write: never where the sandbox itself comes from. */
const TEMP_DIRS = () => [tmpdir(), "/tmp", "/var/tmp", "/dev/shm"];

/**
 * Path of `bwrap` on `path` (default PATH), or null. Relative PATH entries and temp dirs are
 * skipped (host/run.ts `hostProgram`): a `bwrap` the model wrote must never be what "sandboxes"
 * it. Looked up once per PATH value; `sandboxWrap` also refuses one inside a writable root.
 */
export function findBwrap(path = process.env.PATH ?? ""): string | null {
  const cached = found.get(path);
  if (cached !== undefined) return cached;
  const hit = hostProgram("bwrap", path, TEMP_DIRS()) ?? null;
  found.set(path, hit);
  return hit;
}

const helps = new Map<string, string>();

/** True when `bwrap` lists `option` in its --help (--disable-userns needs bubblewrap ≥ 0.8). */
function bwrapHas(bwrap: string, option: string): boolean {
  let help = helps.get(bwrap);
  if (help === undefined) {
    help =
      spawnSync(bwrap, ["--help"], { encoding: "utf8", timeout: 5000, killSignal: "SIGKILL" }).stdout ?? "";
    helps.set(bwrap, help);
  }
  return help.includes(option);
}

const real = (p: string) => {
  try {
    return realpathSync(p);
  } catch {
    return resolve(p);
  }
};

/**
 * Directories a workspace-write command may write: the thread's cwd, the policy's added
 * roots, temp dirs. Never a tool argument: a command's `workdir` is only where it starts.
 */
export function writableRoots(policy: SandboxPolicy, cwd: string): string[] {
  if (policy.mode !== "workspace-write") return [];
  const roots = [cwd, ...policy.writableRoots, tmpdir(), "/tmp", "/var/tmp", "/dev/shm"];
  const out: string[] = [];
  for (const r of roots) {
    const p = real(r);
    if (existsSync(p) && !out.includes(p)) out.push(p);
  }
  return out;
}

/** True when `path` is inside one of the roots (used for file-change approvals). */
export function isWritable(path: string, roots: string[]): boolean {
  const p = real(path);
  return roots.some((r) => p === r || p.startsWith(r.endsWith("/") ? r : `${r}/`));
}

/** `dir/.git` and, when it is a pointer file (worktree, submodule), its gitdir and commondir. */
function gitPaths(dir: string): string[] {
  const git = join(dir, ".git");
  let st: Stats;
  try {
    st = statSync(git);
  } catch {
    return [];
  }
  if (!st.isFile()) return [git];
  const out = [git];
  // Read as data only: a FIFO or a huge file the model planted is refused, never waited on.
  const pointer = readRegularText(git, { maxBytes: 4096, noFollow: true });
  const m = pointer ? /^gitdir:\s*(.+?)\s*$/m.exec(pointer) : null;
  if (m) {
    const gitdir = resolve(dir, m[1]);
    out.push(gitdir);
    const common = readRegularText(join(gitdir, "commondir"), { maxBytes: 4096, noFollow: true });
    if (common?.trim()) out.push(resolve(gitdir, common.trim()));
  }
  return out;
}

/**
 * Paths bound read-only over the writable roots: each root's `.git` (and the chdir's, for
 * a repository nested in a root), what a `.git` pointer file names, and the policy's
 * protected paths (Tandem's home and store). Only existing paths inside a writable root
 * count: elsewhere everything is read-only already, and binding a missing path would
 * create it on the host. A missing store file (e.g. `state.db-wal`) is covered by its
 * directory's bind.
 */
export function protectedBinds(policy: SandboxPolicy, roots: string[], chdir: string): string[] {
  const candidates = [...roots, ...(isWritable(chdir, roots) ? [chdir] : [])].flatMap(gitPaths);
  candidates.push(...(policy.protectedPaths ?? []));
  const out: string[] = [];
  for (const c of candidates) {
    const p = real(c);
    if (!out.includes(p) && existsSync(p) && isWritable(p, roots)) out.push(p);
  }
  return out;
}

const depth = (p: string) => p.split("/").length;
const byDepth = (a: string, b: string) => depth(a) - depth(b);
const strictlyInside = (dir: string, p: string) => p !== dir && isWritable(p, [dir]);

/** Name of the empty, unreadable file (mode 000) bound over hidden files. */
const BLANK = ".sandbox-hidden";

/**
 * `dir/.sandbox-hidden`, an empty file of mode 000, made (or repaired: anything else under that
 * name is replaced) on demand; undefined when it cannot be written. It lives in a hidden
 * directory (the home), so no sandboxed command can ever swap it for something else.
 */
function blankIn(dir: string): string | undefined {
  const p = join(dir, BLANK);
  try {
    const st = lstatSync(p);
    if (st.isFile() && st.size === 0 && (st.mode & 0o777) === 0) return p;
    rmSync(p, { recursive: true, force: true });
  } catch {
    // absent: made below
  }
  try {
    writeFileSync(p, "", { mode: 0, flag: "wx" });
    return p;
  } catch {
    return undefined;
  }
}

/**
 * bwrap arguments, after the writable and protected binds, that hide the policy's hidden paths
 * (those that exist; links resolved): an empty tmpfs over each directory, mode 0111 (a command
 * can pass through it but not list it) and remounted read-only at the end; over each file
 * outside those directories, an empty file of mode 000 (reads fail; with no hidden directory
 * to keep it in, /dev/null: reads are empty). A writable root strictly inside a hidden
 * directory (a workspace inside the home) is bound again on top, followed by the protected and
 * hidden paths inside it, so it works as before and what it holds of Tandem's stays hidden.
 * A root that *is* a hidden directory stays hidden. Links cannot lead out: they resolve inside
 * the sandbox, where the hidden paths are empty.
 */
function hideArgs(bwrap: string, policy: SandboxPolicy, roots: string[], ro: string[]): string[] {
  const hidden = [...new Set((policy.hiddenPaths ?? []).map(real))].filter((p) => existsSync(p));
  if (hidden.length === 0) return [];
  const dirs = hidden.filter((p) => statSync(p).isDirectory()).sort(byDepth);
  const files = hidden.filter((p) => !dirs.includes(p));
  const blank = (dirs.length && blankIn(dirs[0])) || "/dev/null";
  const under = (p: string) => dirs.some((d) => strictlyInside(d, p));
  const perms = bwrapHas(bwrap, "--perms") ? ["--perms", "0111"] : [];
  const out: string[] = [];
  const tmpfs: string[] = [];
  const hide = (inScope: (p: string) => boolean) => {
    for (const d of dirs.filter(inScope)) {
      out.push(...perms, "--tmpfs", d);
      tmpfs.push(d);
    }
    for (const f of files.filter(inScope)) out.push("--ro-bind", blank, f);
  };
  // Everything that is not inside a hidden directory (those go with it)…
  hide((p) => !under(p));
  // …then the writable roots inside one, with what they protect and hide.
  const inner = roots.filter(under).sort(byDepth);
  const inInner = (p: string) => !inner.includes(p) && inner.some((r) => strictlyInside(r, p));
  for (const r of inner) out.push("--bind", r, r);
  for (const p of ro.filter(inInner)) out.push("--ro-bind", p, p);
  hide(inInner);
  for (const d of tmpfs) out.push("--remount-ro", d);
  return out;
}

export interface WrapOptions {
  /** Where the command starts (its resolved `workdir`); default the thread's cwd. Not a root. */
  chdir?: string;
  /** PATH to find bwrap on (default process.env.PATH). */
  path?: string;
}

export type WrapResult = { ok: true; wrap?: string[] } | { ok: false; error: string };

/**
 * The argv prefix for `policy` with the thread's `cwd`, or a clear refusal when the sandbox
 * cannot be had. Layout: a user namespace with every capability dropped (root included; no
 * nested user namespaces), private PID/IPC/UTS/cgroup namespaces, no network unless the
 * policy allows it, the seccomp filter of seccomp.ts, `/` read-only, then the writable roots
 * (parents before children), then the protected paths read-only, so those always win.
 * The filter reaches bwrap as fd 3 (`withFd3`).
 */
export function sandboxWrap(policy: SandboxPolicy, cwd: string, opts: WrapOptions = {}): WrapResult {
  if (policy.mode === "danger-full-access") return { ok: true };
  const bwrap = findBwrap(opts.path);
  if (!bwrap) {
    return {
      ok: false,
      error:
        `sandbox unavailable: bubblewrap (bwrap) is not installed, so the ${policy.mode} sandbox cannot be enforced. ` +
        "Install it (Debian: apt-get install bubblewrap) or run with --sandbox danger-full-access to run commands unsandboxed.",
    };
  }
  const filter = seccompPath();
  if (!filter) {
    return {
      ok: false,
      error:
        `sandbox unavailable: Tandem has no seccomp filter for ${process.arch}, so the ${policy.mode} sandbox cannot block unix sockets. ` +
        "Run with --sandbox danger-full-access to run commands unsandboxed.",
    };
  }
  const chdir = opts.chdir ?? cwd;
  const roots = writableRoots(policy, real(cwd));
  if (isWritable(bwrap, roots))
    return {
      ok: false,
      error: `sandbox refused: the bwrap found on PATH (${bwrap}) is inside a directory commands may write; put bubblewrap's directory first on PATH (Debian: /usr/bin/bwrap)`,
    };
  // No UTS or cgroup namespace: without capabilities the hostname and cgroupfs (under the
  // read-only /sys) cannot be changed anyway, and each namespace costs start-up time.
  // Older bubblewrap (< 0.8) lacks --disable-userns: nested user namespaces then remain
  // possible, though they cannot unlock the read-only mounts made here.
  const args = [bwrap, "--unshare-user", "--cap-drop", "ALL"];
  if (bwrapHas(bwrap, "--disable-userns")) args.push("--disable-userns");
  args.push("--unshare-pid", "--unshare-ipc");
  if (!policy.network) args.push("--unshare-net");
  args.push("--ro-bind", "/", "/", "--dev", "/dev", "--proc", "/proc");
  for (const root of [...roots].sort(byDepth)) args.push("--bind", root, root);
  const ro = protectedBinds(policy, roots, real(chdir));
  for (const p of ro) args.push("--ro-bind", p, p);
  args.push(...hideArgs(bwrap, policy, roots, ro));
  args.push("--seccomp", "3", "--die-with-parent", "--new-session", "--chdir", chdir, "--");
  return { ok: true, wrap: withFd3(filter, args) };
}

/** Output patterns of a write the sandbox refused. */
export function looksLikeSandboxDenial(output: string): boolean {
  return /Read-only file system|Operation not permitted|Permission denied/i.test(output);
}
