/**
 * `config/value/write` and `config/batchWrite`: what Codex clients save (the TUI's `/model`
 * writes `model` and `model_reasoning_effort`) goes into `$TANDEM_HOME/config.toml` by line edits
 * that keep its comments and layout (config/edit.ts), and `config/read` reports it.
 *
 * Contract:
 * - Only the keys of config/edit.ts `WRITABLE_KEYS` are written; an unknown key, a bad value, a
 *   stale `expectedVersion` or a value that cannot be edited in place is -32602 with the reason
 *   (`data.reason`: unknown_key | invalid_value | version_conflict | unparsable) and the file is
 *   untouched. A batch is all or nothing.
 * - `filePath`, when given, must be that config.toml: a client cannot write any other file.
 * - The answer is Codex's `ConfigWriteResponse` (`status: "ok"`, the new `version`). Written
 *   values apply to what `config/read` reports from then on (over the settings the process
 *   started with); threads already running keep theirs, as Codex's `reloadUserConfig` leaves
 *   model and effort alone.
 */
import { join, resolve } from "node:path";
import * as z from "zod";
import { ConfigEditError, checkEdit, writeConfigEdits } from "../../config/edit.js";
import type { ServerContext } from "./context.js";
import { type Ctx, type Method, method } from "./method.js";
import { ErrorCode, RpcError } from "./rpc.js";

const Edit = z.object({
  keyPath: z.string(),
  value: z.unknown(),
  mergeStrategy: z.enum(["replace", "upsert"]),
});
const Common = {
  filePath: z.string().nullish(),
  expectedVersion: z.string().nullish(),
};
const ValueWriteParams = Edit.extend(Common);
const BatchWriteParams = z.object({
  edits: z.array(Edit),
  reloadUserConfig: z.boolean().nullish(),
  ...Common,
});

/** Values written by this process, per server, over its start-up settings (config/read). */
const written = new WeakMap<ServerContext, Map<string, unknown>>();

export function writtenConfig(server: ServerContext): ReadonlyMap<string, unknown> {
  return written.get(server) ?? new Map();
}

function write(
  server: ServerContext,
  name: string,
  edits: Array<z.infer<typeof Edit>>,
  p: { filePath?: string | null; expectedVersion?: string | null },
) {
  const file = join(server.opts.home, "config.toml");
  if (p.filePath && resolve(p.filePath) !== file)
    throw new RpcError(
      ErrorCode.InvalidParams,
      `invalid params for ${name}: filePath: Tandem writes only ${file}`,
      {
        reason: "readonly_path",
      },
    );
  const asEdits = edits.map((e) => ({ key: e.keyPath, value: e.value ?? null }));
  try {
    const version = writeConfigEdits(file, asEdits, p.expectedVersion);
    const mine = written.get(server) ?? new Map<string, unknown>();
    written.set(server, mine);
    for (const e of asEdits) mine.set(e.key, checkEdit(e).value);
    return { filePath: file, status: "ok", version, overriddenMetadata: null };
  } catch (err) {
    if (err instanceof ConfigEditError)
      throw new RpcError(ErrorCode.InvalidParams, `invalid params for ${name}: ${err.message}`, {
        reason: err.code,
      });
    throw err;
  }
}

export const CONFIG_WRITE_METHODS: Record<string, Method<any>> = {
  "config/value/write": method(ValueWriteParams, ({ server }: Ctx, p) =>
    write(server, "config/value/write", [p], p),
  ),
  "config/batchWrite": method(BatchWriteParams, ({ server }: Ctx, p) =>
    write(server, "config/batchWrite", p.edits, p),
  ),
};
