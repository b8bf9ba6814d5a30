/**
 * `command/exec` and `command/exec/terminate`: a client runs one command outside any turn (the
 * Codex TUI's `/diff` runs `git diff` this way), through `runtime.commands` — the configured
 * sandbox unless the request names a `sandboxPolicy` or `permissionProfile` (as thread/start may).
 *
 * Contract:
 * - The response comes when the process exits: `{exitCode, stdout, stderr}`; with a `processId`
 *   and `streamStdoutStderr`, output goes out first as `command/exec/outputDelta` (base64, per
 *   stream) and the response's stdout/stderr are empty. A command that cannot run (empty argv,
 *   no sandbox to be had, cwd not a directory) is -32602 with the reason.
 * - Default timeout 60 s (`timeoutMs` sets one, `disableTimeout` none) and 1 MiB per stream
 *   (`outputBytesCap`, `disableOutputCap`); both combined with their `disable…` twin is -32602.
 * - A `processId` is the connection's: a second live one with the same id is -32602;
 *   `command/exec/terminate` kills it; the connection closing kills every process it started.
 * - Not supported (-32602 saying so): `tty`, `streamStdin`, `size`, and so `command/exec/write`
 *   and `command/exec/resize`, which only apply to those.
 */
import { existsSync, statSync } from "node:fs";
import { resolve } from "node:path";
import * as z from "zod";
import { SandboxPolicy } from "../../protocol/app-server.js";
import { StandaloneError, type StandaloneHandle } from "../../runtime/core.js";
import { type Ctx, type Method, method } from "./method.js";
import { ErrorCode, RpcError } from "./rpc.js";
import { safetyPatch } from "./safety.js";
import type { ClientSession } from "./session.js";

const DEFAULT_TIMEOUT_MS = 60_000;
const DEFAULT_CAP = 1 << 20;

const ExecParams = z.object({
  command: z.array(z.string()),
  cwd: z.string().nullish(),
  env: z.record(z.string(), z.string().nullable()).nullish(),
  timeoutMs: z.number().int().min(0).nullish(),
  disableTimeout: z.boolean().optional(),
  outputBytesCap: z.number().int().min(0).nullish(),
  disableOutputCap: z.boolean().optional(),
  processId: z.string().nullish(),
  sandboxPolicy: SandboxPolicy.nullish(),
  permissionProfile: z.string().nullish(),
  tty: z.boolean().optional(),
  streamStdin: z.boolean().optional(),
  streamStdoutStderr: z.boolean().optional(),
  size: z.unknown().optional(),
});

const live = new WeakMap<ClientSession, Map<string, StandaloneHandle>>();

function processesOf(session: ClientSession): Map<string, StandaloneHandle> {
  let map = live.get(session);
  if (!map) {
    const created = new Map<string, StandaloneHandle>();
    map = created;
    live.set(session, created);
    session.onDispose(() => {
      for (const h of created.values()) void h.terminate();
      created.clear();
    });
  }
  return map;
}

const invalid = (why: string) =>
  new RpcError(ErrorCode.InvalidParams, `invalid params for command/exec: ${why}`);

const exec = method(ExecParams, async ({ server, session }: Ctx, p) => {
  if (p.command.length === 0) throw invalid("command: must not be empty");
  if (p.tty || p.streamStdin || p.size)
    throw invalid("tty, streamStdin and size are not supported by Tandem (no interactive command/exec)");
  if (p.disableTimeout && p.timeoutMs != null)
    throw invalid("timeoutMs cannot be combined with disableTimeout");
  if (p.disableOutputCap && p.outputBytesCap != null)
    throw invalid("outputBytesCap cannot be combined with disableOutputCap");
  if (p.streamStdoutStderr && !p.processId) throw invalid("streamStdoutStderr needs a processId");
  const cwd = resolve(p.cwd ?? process.cwd());
  if (!existsSync(cwd) || !statSync(cwd).isDirectory()) throw invalid(`cwd ${cwd} is not a directory`);
  const safety = safetyPatch(
    { sandboxPolicy: p.sandboxPolicy, permissions: p.permissionProfile },
    "command/exec",
  );
  const processes = processesOf(session);
  if (p.processId && processes.has(p.processId)) throw invalid(`processId ${p.processId} is already running`);
  const stream = p.streamStdoutStderr === true;
  const processId = p.processId ?? undefined;
  let handle: StandaloneHandle;
  try {
    handle = await server.runtime.commands.exec({
      argv: p.command,
      cwd,
      env: p.env ?? undefined,
      ...(p.disableTimeout ? {} : { timeoutMs: p.timeoutMs ?? DEFAULT_TIMEOUT_MS }),
      ...(p.disableOutputCap ? {} : { outputCap: p.outputBytesCap ?? DEFAULT_CAP }),
      ...(safety.sandbox_mode ? { sandbox: safety.sandbox_mode } : {}),
      ...(typeof safety.network_access === "boolean" ? { network: safety.network_access } : {}),
      ...(safety.writable_roots ? { writableRoots: safety.writable_roots } : {}),
      onOutput: (s, chunk, capReached) => {
        if (stream && processId)
          session.notify("command/exec/outputDelta", {
            processId,
            stream: s,
            deltaBase64: Buffer.from(chunk).toString("base64"),
            capReached,
          });
      },
    });
  } catch (err) {
    if (err instanceof StandaloneError) throw invalid(err.message);
    throw err;
  }
  if (processId) processes.set(processId, handle);
  try {
    const r = await handle.result;
    return { exitCode: r.exitCode, stdout: stream ? "" : r.stdout, stderr: stream ? "" : r.stderr };
  } finally {
    if (processId) processes.delete(processId);
  }
});

const terminate = method(z.object({ processId: z.string() }), async ({ session }: Ctx, p) => {
  const handle = live.get(session)?.get(p.processId);
  if (!handle)
    throw new RpcError(
      ErrorCode.InvalidParams,
      `invalid params for command/exec/terminate: no running process ${p.processId}`,
    );
  await handle.terminate();
  return {};
});

export const COMMAND_EXEC_METHODS: Record<string, Method<any>> = {
  "command/exec": exec,
  "command/exec/terminate": terminate,
};
