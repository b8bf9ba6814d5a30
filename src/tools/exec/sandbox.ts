/**
 * OS sandbox for commands (SPEC A1): on Linux every command runs under bubblewrap with the
 * policy's mounts. Never enforced by prompt text alone.
 *
 * - read-only: the whole filesystem read-only (no writable path at all), no network;
 * - workspace-write: read-only root, writable workspace roots (cwd + added dirs) and temp
 *   dirs, each root's `.git` kept read-only, no network unless the policy allows it;
 * - danger-full-access: no sandbox.
 * Inside, a private PID namespace with --die-with-parent: killing bwrap kills every process
 * the command started, so interrupt still reaches the whole tree.
 */
import { accessSync, constants, existsSync, realpathSync } from "node:fs";
import { tmpdir } from "node:os";
import { delimiter, join, resolve } from "node:path";

export type SandboxMode = "read-only" | "workspace-write" | "danger-full-access";

export interface SandboxPolicy {
  mode: SandboxMode;
  /** Writable roots besides the cwd (workspace-write), e.g. from --add-dir. */
  writableRoots: string[];
  network: boolean;
}

const found = new Map<string, string | null>();

/** Path of `bwrap` on `path` (default PATH), or null. Looked up once per PATH value. */
export function findBwrap(path = process.env.PATH ?? ""): string | null {
  const cached = found.get(path);
  if (cached !== undefined) return cached;
  let hit: string | null = null;
  for (const dir of path.split(delimiter).filter(Boolean)) {
    const candidate = join(dir, "bwrap");
    try {
      accessSync(candidate, constants.X_OK);
      hit = candidate;
      break;
    } catch {
      // next
    }
  }
  found.set(path, hit);
  return hit;
}

const real = (p: string) => {
  try {
    return realpathSync(p);
  } catch {
    return resolve(p);
  }
};

/** Directories a workspace-write command may write: cwd, added roots, temp. */
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

export type WrapResult = { ok: true; wrap?: string[] } | { ok: false; error: string };

/** The argv prefix for `policy`, or a clear refusal when the sandbox cannot be had. */
export function sandboxWrap(policy: SandboxPolicy, cwd: string, path?: string): WrapResult {
  if (policy.mode === "danger-full-access") return { ok: true };
  const bwrap = findBwrap(path);
  if (!bwrap) {
    return {
      ok: false,
      error:
        `sandbox unavailable: bubblewrap (bwrap) is not installed, so the ${policy.mode} sandbox cannot be enforced. ` +
        "Install it (Debian: apt-get install bubblewrap) or run with --sandbox danger-full-access to run commands unsandboxed.",
    };
  }
  const args = [bwrap, "--ro-bind", "/", "/", "--dev", "/dev", "--proc", "/proc"];
  for (const root of writableRoots(policy, cwd)) {
    args.push("--bind", root, root);
    const git = join(root, ".git");
    if (existsSync(git)) args.push("--ro-bind", git, git);
  }
  if (!policy.network) args.push("--unshare-net");
  args.push("--unshare-pid", "--die-with-parent", "--new-session", "--chdir", cwd, "--");
  return { ok: true, wrap: args };
}

/** Output patterns of a write the sandbox refused. */
export function looksLikeSandboxDenial(output: string): boolean {
  return /Read-only file system|Operation not permitted|Permission denied/i.test(output);
}
