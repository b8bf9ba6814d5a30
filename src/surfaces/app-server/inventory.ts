/**
 * Codex inventory methods a Codex client calls at startup, answered from what Tandem has:
 * `skills/list`, `hooks/list`, `plugin/installed`, `account/bedrock/checkGovCloudRequirements`,
 * `thread/goal/get`, `thread/backgroundTerminals/list`, `thread/turns/list`.
 *
 * Contract:
 * - `skills/list` lists the skills Tandem finds for each cwd (SKILL.md folders, runtime.skills) with
 *   the files it skipped as `errors`.
 * - `hooks/list` reports the user's hooks (README "Hooks") in Codex's HookMetadata shape.
 * - Tandem has no plugins, Bedrock account or thread goals: those answer the
 *   valid empty shape (one entry per requested cwd where the method is per-cwd), never an error, so
 *   a Codex UI shows nothing rather than a red error line.
 * - `mcpServerStatus/list` reports the configured MCP servers (see below).
 * - `thread/backgroundTerminals/list` is empty: Tandem's background commands are exec sessions the
 *   model polls with write_stdin, not terminals a client manages.
 * - `thread/turns/list` pages the thread's stored turns (newest first unless `sortDirection: "asc"`),
 *   with items when `itemsView` is `full` (else `notLoaded`); cursors are offsets.
 */
import { resolve } from "node:path";
import * as z from "zod";
import {
  CwdsParams,
  PageParams,
  ThreadIdOnly,
  ThreadTurnsListParams,
} from "../../protocol/app-server-settings.js";
import { sanitizeName } from "../../tools/mcp/names.js";
import { codexSkill } from "./codex-skills.js";
import { codexTurns } from "./history.js";
import { type Ctx, type Method, method, pageOf } from "./method.js";
import { requireThread } from "./threads.js";

const cwdsOf = (p: { cwds?: string[] | null }): string[] =>
  (p.cwds?.length ? p.cwds : [process.cwd()]).map((c) => resolve(c));

/** `skills/list`: the skills of each cwd (runtime.skills, docs/skills.md) as Codex `SkillMetadata`. */
const skills = method(CwdsParams.passthrough(), ({ server }: Ctx, p) => ({
  data: cwdsOf(p).map((cwd) => {
    const found = server.runtime.skills.list(cwd);
    return { cwd, skills: found.skills.map(codexSkill), errors: found.problems };
  }),
}));

/** `hooks/list`: the hooks that apply in each cwd (README "Hooks"), as Codex's HookMetadata. */
const hooks = method(CwdsParams.passthrough(), ({ server }: Ctx, p) => ({
  data: cwdsOf(p).map((cwd) => {
    const found = server.runtime.hooks.list(cwd);
    const listed = found.hooks.filter((h) => h.event !== "Notification");
    const unlisted = found.hooks.length - listed.length;
    return {
      cwd,
      hooks: listed.map((h, i) => ({
        key: h.key,
        eventName: h.event[0].toLowerCase() + h.event.slice(1),
        handlerType: "command",
        command: h.command,
        async: false,
        matcher: h.matcher ?? null,
        timeoutSec: h.timeoutSec,
        source: h.source.scope,
        sourcePath: h.source.path,
        trustStatus: h.source.trust,
        currentHash: h.source.sha256,
        displayOrder: i,
        enabled: h.source.trust === "trusted",
        isManaged: false,
        statusMessage: null,
        pluginId: null,
      })),
      warnings: [
        ...found.warnings,
        ...(unlisted ? [`${unlisted} Notification hook(s) not listed: Codex has no such event name`] : []),
      ],
      errors: found.errors,
    };
  }),
}));

const plugins = method(CwdsParams.passthrough(), () => ({ marketplaces: [], marketplaceLoadErrors: [] }));

const govCloud = method(z.unknown(), () => ({ isGovCloud: false, shouldWarn: false }));

const goal = method(ThreadIdOnly, ({ server }: Ctx, p) => {
  requireThread(server, p.threadId);
  return { goal: null };
});

const backgroundTerminals = method(ThreadIdOnly.extend(PageParams.shape), ({ server }: Ctx, p) => {
  requireThread(server, p.threadId);
  return { data: [], nextCursor: null };
});

/**
 * `mcpServerStatus/list`: the configured `[mcp_servers]`, each with how it last started in this
 * process (`connected` / `failed`, from `mcp.status`; `notStarted` before any thread started it;
 * `disabled` when `enabled = false`) and, from a loaded thread, the tools it offers the model
 * (keyed by the model-facing `mcp__server__tool` name).
 */
const mcpServers = method(PageParams.passthrough(), ({ server }: Ctx, p) => {
  const configured = Object.entries(server.runtime.settings.mcp_servers ?? {});
  const wire = server.runtime.threads.loaded().flatMap((t) => server.runtime.threads.tools(t.id));
  const data = configured.map(([name, config]) => {
    const seen = server.mcpStatus.get(name);
    const prefix = `mcp__${sanitizeName(name)}__`;
    const tools = Object.fromEntries(
      wire
        .filter((t) => t.name.startsWith(prefix))
        .map((t) => [
          t.name,
          { name: t.name, description: t.description ?? null, inputSchema: t.parameters ?? {} },
        ]),
    );
    return {
      name,
      authStatus: config.url ? (config.bearer_token_env_var ? "bearerToken" : "unknown") : "unsupported",
      runtimeStatus: !config.enabled
        ? "disabled"
        : seen?.status === "ready"
          ? "connected"
          : seen?.status === "failed"
            ? "failed"
            : "notStarted",
      toolsError: seen?.status === "failed" ? (seen.error ?? "failed to start") : null,
      httpOrigin: config.url ? new URL(config.url).origin : null,
      tools,
      resources: [],
      resourceTemplates: [],
    };
  });
  return pageOf("mcpServerStatus/list", data, p);
});

const turnsList = method(ThreadTurnsListParams, ({ server }: Ctx, p) => {
  const record = requireThread(server, p.threadId);
  const full = p.itemsView === "full";
  const { threads } = server.runtime;
  const questionOf = (callId: string) => server.runtime.questions.ofCall(record.id, callId);
  const history = full ? threads.history(record.id) : [];
  const turns = codexTurns(threads.turns(record.id), history, record.cwd, questionOf).map((t) =>
    full ? { ...t, itemsView: "full" } : { ...t, items: [], itemsView: "notLoaded" },
  );
  if (p.sortDirection !== "asc") turns.reverse();
  return { ...pageOf("thread/turns/list", turns, p), backwardsCursor: null };
});

export const INVENTORY_METHODS: Record<string, Method<any>> = {
  "skills/list": skills,
  "hooks/list": hooks,
  "plugin/installed": plugins,
  "account/bedrock/checkGovCloudRequirements": govCloud,
  "thread/goal/get": goal,
  "thread/backgroundTerminals/list": backgroundTerminals,
  "thread/turns/list": turnsList,
  "mcpServerStatus/list": mcpServers,
};
