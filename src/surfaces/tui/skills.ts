/**
 * Skills and custom commands in the terminal UI (docs/skills.md): what the composer offers in its
 * `/` list (custom commands, after the built-in ones) and its `$` list (skills), and `/skills`,
 * a picker that puts `$name ` into the draft (sending it attaches the skill's SKILL.md body), and
 * the `@` list's file search over the shown thread's directory (runtime.files, indexed once).
 *
 * Contract: the lists are read from `runtime.skills` when the shown thread changes and after
 * each send (`refresh`), never per keystroke; a file that fails to load is not offered.
 */
import type { Runtime } from "../../runtime/core.js";
import type { CommandEntry } from "./commands.js";
import type { Completions, DraftSource } from "./composer.js";
import type { MenuHost } from "./picker.js";

export class TuiSkills implements Completions, DraftSource {
  #cwd: string | undefined;
  #commands: CommandEntry[] = [];
  #skills: CommandEntry[] = [];
  readonly #drafts = new Set<(text: string) => void>();

  constructor(private readonly runtime: Runtime) {}

  /** Reads the lists for `cwd` again (also when it did not change: files may have). */
  refresh(cwd: string): void {
    this.#cwd = cwd;
    this.#commands = this.runtime.skills.commands(cwd).commands.map((c) => ({
      name: c.name,
      description: `${c.argumentHint ? `${c.argumentHint} — ` : ""}${c.description}`,
    }));
    this.#skills = this.runtime.skills
      .list(cwd)
      .skills.map((s) => ({ name: s.name, description: s.shortDescription ?? s.description }));
  }

  /** The `@` list: the shown thread's workspace files matching `query` (runtime.files). */
  files = async (query: string): Promise<string[]> => {
    if (!this.#cwd) return [];
    return (await this.runtime.files.search(this.#cwd, query, { limit: 20 })).map((m) => m.path);
  };

  commands = (): CommandEntry[] => this.#commands;
  skills = (): CommandEntry[] => this.#skills;
  /** Custom command names, for telling `/name` from an unknown command. */
  commandNames = (): string[] => this.#commands.map((c) => c.name);

  subscribe = (fn: (text: string) => void): (() => void) => {
    this.#drafts.add(fn);
    return () => {
      this.#drafts.delete(fn);
    };
  };

  /** `/skills`: the skills of the shown thread's directory; picking one adds `$name ` to the draft. */
  openPicker(menus: MenuHost, notice: (text: string) => void): void {
    if (this.#cwd) this.refresh(this.#cwd);
    if (!this.#skills.length) {
      notice(
        "no skills here (SKILL.md folders in .agents/skills, .claude/skills, ~/.agents/skills, $TANDEM_HOME/skills)",
      );
      return;
    }
    menus.open({
      title: "Skills — pick one to use it in your message",
      items: this.#skills.map((s) => ({ label: `$${s.name}`, detail: s.description, value: s.name })),
      onPick: (name) => {
        for (const fn of this.#drafts) fn(`$${name} `);
      },
    });
  }
}
