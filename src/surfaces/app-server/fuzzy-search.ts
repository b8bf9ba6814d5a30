/**
 * Codex `fuzzyFileSearch` and `fuzzyFileSearch/sessionStart|sessionUpdate|sessionStop` (README
 * "Mention files: `@`") over `runtime.files`: one index per root, built once and kept current.
 * `fuzzyFileSearch {query, roots}` answers `{files}` (each `{root, path, file_name, match_type,
 * score, indices}`, best first); a session remembers its roots, and each `sessionUpdate {query}`
 * answers `{}` at once, then notifies `fuzzyFileSearch/sessionUpdated {sessionId, query, files}`
 * and `fuzzyFileSearch/sessionCompleted {sessionId}`. Sessions belong to their connection.
 */
import { basename } from "node:path";
import * as z from "zod";
import { type Ctx, type Method, method } from "./method.js";
import { ErrorCode, RpcError } from "./rpc.js";
import type { ClientSession } from "./session.js";

const LIMIT = 50;
const sessions = new WeakMap<ClientSession, Map<string, string[]>>();

async function search(ctx: Ctx, roots: string[], query: string) {
  const per = await Promise.all(
    roots.map(async (root) =>
      (await ctx.server.runtime.files.search(root, query, { limit: LIMIT })).map((m) => ({
        root,
        path: m.path,
        file_name: basename(m.path),
        match_type: "file" as const,
        score: m.score,
        indices: m.indices,
      })),
    ),
  );
  return per
    .flat()
    .sort((a, b) => b.score - a.score)
    .slice(0, LIMIT);
}

const oneShot = method(
  z.object({ query: z.string(), roots: z.array(z.string()), cancellationToken: z.string().nullish() }),
  async (ctx: Ctx, p) => ({ files: await search(ctx, p.roots, p.query) }),
);

const start = method(
  z.object({ sessionId: z.string(), roots: z.array(z.string()) }),
  ({ session }: Ctx, p) => {
    let mine = sessions.get(session);
    if (!mine) {
      mine = new Map();
      sessions.set(session, mine);
    }
    mine.set(p.sessionId, p.roots);
    return {};
  },
);

const update = method(z.object({ sessionId: z.string(), query: z.string() }), (ctx: Ctx, p) => {
  const roots = sessions.get(ctx.session)?.get(p.sessionId);
  if (!roots) throw new RpcError(ErrorCode.InvalidParams, `no fuzzy file search session ${p.sessionId}`);
  void search(ctx, roots, p.query).then((files) => {
    if (sessions.get(ctx.session)?.get(p.sessionId) !== roots) return;
    ctx.session.notify("fuzzyFileSearch/sessionUpdated", { sessionId: p.sessionId, query: p.query, files });
    ctx.session.notify("fuzzyFileSearch/sessionCompleted", { sessionId: p.sessionId });
  });
  return {};
});

const stop = method(z.object({ sessionId: z.string() }), ({ session }: Ctx, p) => {
  sessions.get(session)?.delete(p.sessionId);
  return {};
});

export const FUZZY_SEARCH_METHODS: Record<string, Method<any>> = {
  fuzzyFileSearch: oneShot,
  "fuzzyFileSearch/sessionStart": start,
  "fuzzyFileSearch/sessionUpdate": update,
  "fuzzyFileSearch/sessionStop": stop,
};
