/**
 * `[agents]` settings (README "Sub-agents"): limits on sub-agents and the roles a model may spawn.
 *
 * ```toml
 * [agents]
 * max_depth = 2        # a child of the root has depth 1
 * max_threads = 6      # sub-agents open at once under one root thread
 * [agents.reviewer]    # a role: every other table under [agents]
 * description = "Reviews a diff"
 * instructions = "You review…"
 * model = "gpt-5.2-codex"
 * effort = "high"
 * tools = ["exec_command"]   # only these tools (absent: all)
 * ```
 */
import * as z from "zod";

export const AgentRoleConfig = z.strictObject({
  description: z.string().default("").describe("What the role is for; listed in spawn_agent's description"),
  instructions: z.string().optional().describe("Told to a sub-agent of this role before its task"),
  model: z.string().optional(),
  effort: z.enum(["minimal", "low", "medium", "high", "xhigh"]).optional(),
  tools: z.array(z.string()).optional().describe("The only tools the role may use (absent: all)"),
});
export type AgentRoleConfig = z.infer<typeof AgentRoleConfig>;

const ROLE_NAME = /^[A-Za-z0-9_-]+$/;

/** The TOML table as written (limits beside role tables), parsed as `{max_depth, max_threads, roles}`. */
export const AgentsConfig = z.preprocess(
  (v) => {
    if (!v || typeof v !== "object" || Array.isArray(v)) return v;
    const { max_depth, max_threads, ...roles } = v as Record<string, unknown>;
    return { max_depth, max_threads, roles };
  },
  z.strictObject({
    max_depth: z.number().int().min(0).default(2).describe("Deepest sub-agent (a child of the root is 1)"),
    max_threads: z.number().int().min(0).default(6).describe("Sub-agents open at once under one root"),
    roles: z
      .record(z.string(), AgentRoleConfig)
      .superRefine((roles, ctx) => {
        for (const name of Object.keys(roles))
          if (!ROLE_NAME.test(name))
            ctx.addIssue({
              code: "custom",
              path: [name],
              message: `"${name}" is not a valid agent role name: use only letters, digits, _ and -`,
            });
      })
      .default({}),
  }),
);
export type AgentsConfig = z.infer<typeof AgentsConfig>;

/** The roles of an `[agents]` table (everything but the limits). */
export function configRoles(agents: AgentsConfig): Record<string, AgentRoleConfig> {
  return agents.roles;
}
