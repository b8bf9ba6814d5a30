/**
 * The seccomp filter every sandboxed command runs under (requirements A4), as a classic BPF program
 * bubblewrap loads with `--seccomp FD`. Built here, in TypeScript, so Tandem needs no
 * native helper.
 *
 * What it blocks, with EPERM unless noted:
 * - `socket(AF_UNIX, …)`: no new unix-domain socket, so no connect to a path socket on the
 *   host (docker.sock, tmux, a user D-Bus) nor to an abstract one (which matters when the
 *   network namespace is shared, `network_access = true`). `socketpair(AF_UNIX)` and pipes
 *   stay allowed: a command still talks to the processes it starts. The cost: programs
 *   that listen on or connect to a unix socket inside the sandbox fail too (tmux,
 *   ssh-agent, docker, some test servers); run those escalated.
 * - `io_uring_setup/enter/register`: io_uring performs socket operations without the
 *   syscalls this filter sees.
 * - x32 system calls on x86_64 (numbers with bit 30 set): another entry to `socket`.
 * - any system call of a foreign ABI (e.g. 32-bit `int 0x80` on x86_64): kills the process,
 *   since `socketcall` hides its arguments from the filter. 32-bit binaries cannot run.
 * Everything else is allowed; the filesystem and network limits come from the mounts and
 * namespaces (sandbox.ts), not from here.
 */
import { mkdtempSync, openSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";

/** Per-architecture numbers the filter needs (from the kernel's uapi headers). */
const ARCHES: Record<string, { audit: number; socket: number; ioUring: number[]; x32: boolean }> = {
  x64: { audit: 0xc000003e, socket: 41, ioUring: [425, 426, 427], x32: true },
  arm64: { audit: 0xc00000b7, socket: 198, ioUring: [425, 426, 427], x32: false },
};

const AF_UNIX = 1;
const EPERM = 1;
const X32_SYSCALL_BIT = 0x40000000;

// BPF opcodes (linux/bpf_common.h) and seccomp return values (linux/seccomp.h).
const LD_W_ABS = 0x20;
const JEQ_K = 0x15;
const JSET_K = 0x45;
const RET_K = 0x06;
const RET_ALLOW = 0x7fff0000;
const RET_EPERM = 0x00050000 | EPERM;
const RET_KILL_PROCESS = 0x80000000;
// Offsets in struct seccomp_data: nr, arch, then args[6] (u64, little-endian: low word first).
const OFF_NR = 0;
const OFF_ARCH = 4;
const OFF_ARG0_LO = 16;

type Insn = { code: number; jt?: string | number; jf?: string | number; k: number; label?: string };

/** Encodes `insns` as struct sock_filter[], resolving label jumps to relative offsets. */
function assemble(insns: Insn[]): Buffer {
  const at = new Map<string, number>();
  insns.forEach((insn, i) => {
    if (insn.label) at.set(insn.label, i);
  });
  const buf = Buffer.alloc(insns.length * 8);
  insns.forEach((insn, i) => {
    const rel = (j: string | number | undefined) => {
      if (j === undefined || typeof j === "number") return j ?? 0;
      const target = at.get(j);
      if (target === undefined || target <= i) throw new Error(`bad jump to ${j}`);
      return target - i - 1;
    };
    buf.writeUInt16LE(insn.code, i * 8);
    buf.writeUInt8(rel(insn.jt), i * 8 + 2);
    buf.writeUInt8(rel(insn.jf), i * 8 + 3);
    buf.writeUInt32LE(insn.k >>> 0, i * 8 + 4);
  });
  return buf;
}

/** The filter program for `arch` (Node's `process.arch`), or null when Tandem has none. */
export function seccompProgram(arch: string = process.arch): Buffer | null {
  const a = ARCHES[arch];
  if (!a) return null;
  const insns: Insn[] = [
    { code: LD_W_ABS, k: OFF_ARCH },
    { code: JEQ_K, k: a.audit, jt: 1, jf: 0 },
    { code: RET_K, k: RET_KILL_PROCESS },
    { code: LD_W_ABS, k: OFF_NR },
  ];
  if (a.x32) insns.push({ code: JSET_K, k: X32_SYSCALL_BIT, jt: "deny" });
  insns.push({ code: JEQ_K, k: a.socket, jt: "socket" });
  for (const nr of a.ioUring) insns.push({ code: JEQ_K, k: nr, jt: "deny" });
  insns.push(
    { code: RET_K, k: RET_ALLOW },
    { label: "socket", code: LD_W_ABS, k: OFF_ARG0_LO },
    { code: JEQ_K, k: AF_UNIX, jt: "deny" },
    { code: RET_K, k: RET_ALLOW },
    { label: "deny", code: RET_K, k: RET_EPERM },
  );
  return assemble(insns);
}

let cached: string | null | undefined;

/**
 * A path that opens the filter program afresh each time (`/proc/<pid>/fd/<n>` of an
 * unlinked file this process holds open), or null on an architecture without a filter.
 * The file has no name anywhere a sandboxed command could see or write, so no command can
 * weaken the filter of the next one. Each open has its own offset, so concurrent commands
 * each read the whole program.
 */
export function seccompPath(): string | null {
  if (cached !== undefined) return cached;
  const program = seccompProgram();
  if (!program) {
    cached = null;
    return null;
  }
  const dir = mkdtempSync(join(tmpdir(), "tandem-seccomp-"));
  const file = join(dir, "filter.bpf");
  try {
    writeFileSync(file, program, { mode: 0o400 });
    const fd = openSync(file, "r");
    cached = `/proc/${process.pid}/fd/${fd}`;
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
  return cached;
}
