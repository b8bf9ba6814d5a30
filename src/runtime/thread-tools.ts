/**
 * The tools of one thread (requirements T4): exec_command/write_stdin, request_user_input, apply_patch,
 * update_plan, the sub-agent tools and the thread's MCP servers' tools, in one registry with the
 * approval and workspace-diff hooks and every hook added through Runtime.addToolHooks.
 *
 * Contract:
 * - Tools the thread switched off (`settings.disabled_tools`, a client's per-thread config) and,
 *   for a sub-agent whose role lists tools, any tool not in `settings.allowed_tools` are never
 *   registered: a call to one is an unknown tool, like any name the model makes up.
 * - request_user_input is offered in Plan mode, and in Default mode when `questions.default_mode`
 *   or the thread's headless question mode says so. Freeform apply_patch needs a Responses wire.
 * - MCP servers (config ∪ `mcpServers`, the thread's own) start now, all at once; the registry's
 *   `ready` makes a turn's first request wait for them, bounded by their startup timeouts. An
 *   ephemeral thread (a client's helper) gets no MCP servers and no sub-agent tools.
 * - `close()` kills every exec session's process tree and closes the MCP connections.
 */
import type { ResolvedProvider } from "../config/load.js";
import type { McpServerConfig, Settings } from "../config/schema.js";
import type { Event } from "../protocol/events.js";
import type { ThreadRecord } from "../protocol/threads.js";
import type { SecretStore } from "../questions/secrets.js";
import { createExecTools, ExecSessions } from "../tools/exec/index.js";
import { elicitHandler } from "../tools/mcp/elicit.js";
import { startMcpServers } from "../tools/mcp/servers.js";
import { createApplyPatchTools } from "../tools/patch/index.js";
import { createUpdatePlanTool } from "../tools/plan.js";
import { type ToolHooks, ToolRegistry } from "../tools/registry.js";
import { createRequestUserInputTool } from "../tools/request-user-input.js";
import type { FunctionTool } from "../tools/types.js";
import { patchApprovalHook } from "./patch-approval.js";
import { readOnlyToolsHook } from "./read-only-tools.js";
import { questionsInDefaultMode } from "./tool-context.js";
import type { SandboxInForce } from "./types.js";
import { type DiffThread, workspaceDiffHooks } from "./workspace-diff.js";

/** What the tools use of a loaded thread (thread.ts). */
export interface ToolThread extends DiffThread {
  sandbox(): SandboxInForce;
}

/** What the tools need from the runtime. */
export interface ThreadToolsHost {
  settings: Settings;
  provider: ResolvedProvider;
  chunkId(): string;
  secrets: Pick<SecretStore, "put">;
  /** The sub-agent tools for a thread in `cwd` (agents/index.ts). */
  agentTools(cwd: string): FunctionTool[];
  /** Hooks added through Runtime.addToolHooks (read when the thread is attached). */
  hooks: ToolHooks[];
  publish(event: Event): void;
  thread(id: string): ToolThread | undefined;
}

export function threadTools(
  host: ThreadToolsHost,
  record: ThreadRecord,
  mcpServers: Record<string, McpServerConfig>,
): {
  registry: ToolRegistry;
  close(opts?: { now?: boolean }): Promise<void>;
  /** Whether a process the thread's commands started may still run (exec sessions). */
  processesAlive(): boolean;
} {
  const { settings } = host;
  const st = record.settings;
  const sessions = new ExecSessions();
  const registry = new ToolRegistry();
  const off = new Set(st.disabled_tools ?? []);
  const allowed = st.allowed_tools ? new Set(st.allowed_tools) : undefined;
  const register = registry.register.bind(registry);
  registry.register = (tool) => {
    if (!off.has(tool.name) && (!allowed || allowed.has(tool.name))) register(tool);
  };

  const exec = createExecTools({
    sessions,
    chunkId: host.chunkId,
    // The provider's key variable may be named anything: drop it with the default excludes.
    envPolicy: { ...settings.shell_environment_policy, credential_vars: [host.provider.envKey] },
  });
  registry.register(exec.execCommand);
  registry.register(exec.writeStdin);
  if (settings.questions.enabled) {
    registry.register(
      createRequestUserInputTool({
        availableModes: questionsInDefaultMode(settings, record) ? ["plan", "default"] : ["plan"],
        storeSecret: (questionId, value, ctx) => host.secrets.put(ctx.threadId, questionId, value),
      }),
    );
  }
  const patch = createApplyPatchTools({
    onApplied: (changes, ctx) => {
      const t = host.thread(ctx.threadId);
      if (!t) return;
      t.diffs.track(changes);
      t.workspace.observePatch(changes);
      t.emit({ type: "turn.diff", thread_id: t.id, turn_id: ctx.turnId, diff: t.diffs.diff() });
    },
  });
  // Freeform (custom) tools need the Responses wire; chat providers get the function form.
  registry.register(host.provider.wire === "chat" ? patch.fn : patch.custom);
  registry.register(
    createUpdatePlanTool({
      onPlan: (u, ctx) =>
        host.thread(ctx.threadId)?.emit({
          type: "plan.updated",
          thread_id: ctx.threadId,
          turn_id: ctx.turnId,
          explanation: u.explanation,
          plan: u.plan,
        }),
    }),
  );
  if (!st.ephemeral) for (const tool of host.agentTools(record.cwd)) registry.register(tool);
  registry.addHooks(readOnlyToolsHook);
  registry.addHooks(patchApprovalHook);
  registry.addHooks(workspaceDiffHooks((id) => host.thread(id)));
  for (const h of host.hooks) registry.addHooks(h);

  const servers = { ...settings.mcp_servers, ...mcpServers };
  const anyServer = Object.values(servers).some((c) => c.enabled);
  const mcp =
    st.ephemeral || !anyServer
      ? undefined
      : startMcpServers({
          threadId: record.id,
          servers,
          register: (tool) => registry.register(tool),
          emit: host.publish,
          elicitation: elicitHandler,
          roots: () => {
            const t = host.thread(record.id);
            return [...new Set([record.cwd, ...(t?.sandbox().writableRoots ?? [])])];
          },
        });
  if (mcp) registry.loadingUntil(mcp.ready);
  return {
    registry,
    processesAlive: () => sessions.mayBeRunning(),
    close: async (opts?: { now?: boolean }) => {
      await Promise.all([sessions.closeAll(opts?.now ? 0 : undefined), mcp?.close()]);
    },
  };
}
