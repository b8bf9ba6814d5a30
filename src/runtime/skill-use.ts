/**
 * Using skills in a turn (docs/skills.md): the skills the user named (`$name` in the text, or a
 * client's `skill` input) are attached to the turn as their SKILL.md bodies, after their
 * dependencies are met — missing environment variables asked as secret questions, missing MCP
 * servers offered for config.toml.
 *
 * Contract:
 * - Runs before the turn's first model request; resolves `{ ok: false, message }` when a named
 *   skill cannot be used (unknown, unreadable, a dependency nobody can give — no responder, a
 *   decline, a timeout), and then nothing of it reaches the model: the turn fails with that message.
 * - A secret answer is put in the thread's secret store (masked everywhere, never stored plain or
 *   sent to the model) and the variable is set, under its own name, in the environment of the
 *   thread's commands (`envFor`). An MCP server is written to config.toml only on "Yes".
 * - Never throws (a config write that fails is an `ok: false`).
 */
import type { Settings } from "../config/schema.js";
import { readRegular } from "../host/files.js";
import { type MessageItem, userMessage } from "../protocol/items.js";
import type { QuestionOutcome, QuestionPolicy, QuestionRequest } from "../protocol/questions.js";
import { fromInternal } from "../questions/model.js";
import { type SecretStore, secretEnvName } from "../questions/secrets.js";
import { envQuestion, INSTALL_YES, MCP_QUESTION_PREFIX, mcpEntry, mcpQuestion } from "../skills/deps.js";
import { MAX_SKILL_BYTES } from "../skills/discover.js";
import { mentionedSkills, skillAttachment } from "../skills/mentions.js";
import type { Skill } from "../skills/types.js";
import { setServer } from "../tools/mcp/config-file.js";
import { projectDirs } from "./context.js";
import type { SkillsApi } from "./skills-api.js";

export interface SkillUseHost {
  readonly skills: SkillsApi;
  readonly settings: Settings;
  readonly secrets: Pick<SecretStore, "put" | "has" | "view">;
  readonly responders: { has(threadId: string): boolean };
  ask(request: QuestionRequest, signal: AbortSignal): Promise<QuestionOutcome>;
  /** `$TANDEM_HOME/config.toml`, where an accepted MCP server is added. */
  readonly configFile?: string;
  readonly hidden: readonly string[];
}

export interface SkillUseRequest {
  threadId: string;
  turnId: string;
  cwd: string;
  text: string;
  /** Skill names given explicitly (a client's `skill` input items). */
  explicit?: string[];
  policy: QuestionPolicy;
  signal: AbortSignal;
}

export type SkillUseResult =
  | { ok: true; items: Array<{ item: MessageItem; display: string }>; used: string[] }
  | { ok: false; message: string };

export class SkillUse {
  /** Per thread: variables answered for its skills, set under their own names for its commands. */
  readonly #env = new Map<string, Set<string>>();
  /** MCP servers added to config.toml by this process (the loaded settings do not have them). */
  readonly #added = new Set<string>();

  constructor(private readonly host: SkillUseHost) {}

  /** The environment the thread's commands get for its skills: NAME → value (secret). */
  envFor(threadId: string): Record<string, string> {
    const names = this.#env.get(threadId);
    if (!names?.size) return {};
    const held = this.host.secrets.view(threadId).env();
    const out: Record<string, string> = {};
    for (const n of names) {
      const v = held[secretEnvName(n)];
      if (v !== undefined) out[n] = v;
    }
    return out;
  }

  async prepare(r: SkillUseRequest): Promise<SkillUseResult> {
    const explicit = r.explicit ?? [];
    const needsLook = explicit.length > 0 || r.text.includes("$");
    if (!needsLook) return { ok: true, items: [], used: [] };
    const { skills } = this.host.skills.list(r.cwd);
    const unknown = explicit.filter((n) => !skills.some((s) => s.name === n));
    if (unknown.length)
      return { ok: false, message: `no skill named ${unknown.map((n) => `"${n}"`).join(", ")} in ${r.cwd}` };
    const used = mentionedSkills(r.text, skills, explicit);
    const items: Array<{ item: MessageItem; display: string }> = [];
    for (const skill of used) {
      const deps = await this.#dependencies(skill, r);
      if (!deps.ok) return deps;
      const body = this.#read(skill, r.cwd);
      if (!body.ok) return body;
      items.push({
        item: userMessage([skillAttachment(skill, body.text), ...deps.notes].join("\n\n")),
        display: `[skill ${skill.name} attached: ${skill.path}]`,
      });
    }
    return { ok: true, items, used: used.map((s) => s.name) };
  }

  #read(skill: Skill, cwd: string): { ok: true; text: string } | { ok: false; message: string } {
    const within =
      skill.scope === "repo" ? { root: projectDirs(cwd)[0], exclude: this.host.hidden } : undefined;
    const read = readRegular(skill.path, { maxBytes: MAX_SKILL_BYTES, ...(within ? { within } : {}) });
    return read.ok
      ? { ok: true, text: read.data.toString("utf8") }
      : { ok: false, message: `skill "${skill.name}" is unavailable: ${read.message}` };
  }

  async #dependencies(
    skill: Skill,
    r: SkillUseRequest,
  ): Promise<{ ok: true; notes: string[] } | { ok: false; message: string }> {
    const { secrets, settings } = this.host;
    const env = skill.dependencies.env.filter(
      (v) => !process.env[v.name] && !secrets.has(r.threadId, v.name),
    );
    const mcp = skill.dependencies.mcp.filter(
      (m) => !settings.mcp_servers?.[m.name] && !this.#added.has(m.name),
    );
    const notes: string[] = [];
    const rememberEnv = (name: string) => {
      const set = this.#env.get(r.threadId) ?? new Set<string>();
      this.#env.set(r.threadId, set);
      set.add(name);
    };
    // Variables answered earlier in this thread are set again for its commands.
    for (const v of skill.dependencies.env) if (secrets.has(r.threadId, v.name)) rememberEnv(v.name);
    if (!env.length && !mcp.length) return { ok: true, notes };
    const questions = [
      ...env.map((v) => envQuestion(skill, v)),
      ...mcp.flatMap((m) => mcpQuestion(skill, m) ?? []),
    ];
    const unrunnable = mcp.filter((m) => !mcpEntry(m));
    if (unrunnable.length)
      return unavailable(
        skill,
        `it needs the MCP server ${unrunnable.map((m) => `"${m.name}"`).join(", ")}, which is not configured (add it with \`tandem mcp add\`)`,
      );
    const what = [...env.map((v) => v.name), ...mcp.map((m) => `the MCP server "${m.name}"`)].join(", ");
    if (!this.host.responders.has(r.threadId))
      return unavailable(
        skill,
        `it needs ${what} and nobody can be asked here (set the variables in the environment, or run where Tandem can ask you)`,
      );
    const request = fromInternal({
      threadId: r.threadId,
      turnId: r.turnId,
      callId: `skill_${skill.name}_${r.turnId}`,
      questions,
      policy: r.policy,
    });
    let outcome: QuestionOutcome;
    try {
      outcome = await this.host.ask(request, r.signal);
    } catch (err) {
      return unavailable(skill, `asking for ${what} failed: ${(err as Error).message}`);
    }
    if (outcome.status !== "answered")
      return unavailable(
        skill,
        `${what} not given (${outcome.status}${"reason" in outcome && outcome.reason ? `: ${outcome.reason}` : ""})`,
      );
    for (const v of env) {
      const value = outcome.answers[v.name]?.other ?? "";
      if (!value.trim()) return unavailable(skill, `no value was given for ${v.name}`);
      secrets.put(r.threadId, v.name, value);
      rememberEnv(v.name);
    }
    for (const m of mcp) {
      if (!outcome.answers[`${MCP_QUESTION_PREFIX}${m.name}`]?.selected.includes(INSTALL_YES))
        return unavailable(skill, `the MCP server "${m.name}" was not added`);
      if (!this.host.configFile)
        return unavailable(skill, `no config.toml to add the MCP server "${m.name}" to`);
      try {
        setServer(this.host.configFile, m.name, mcpEntry(m) as Record<string, unknown>);
      } catch (err) {
        return unavailable(skill, `cannot add the MCP server "${m.name}": ${(err as Error).message}`);
      }
      this.#added.add(m.name);
      notes.push(
        `(The MCP server "${m.name}" was added to config.toml; its tools are offered from the next thread on.)`,
      );
    }
    if (env.length)
      notes.push(
        `(${env.map((v) => `$${v.name}`).join(", ")} ${env.length > 1 ? "are" : "is"} set in the environment of your commands; never print ${env.length > 1 ? "them" : "it"}.)`,
      );
    return { ok: true, notes };
  }
}

function unavailable(skill: Skill, why: string): { ok: false; message: string } {
  return { ok: false, message: `skill "${skill.name}" is unavailable: ${why}` };
}
