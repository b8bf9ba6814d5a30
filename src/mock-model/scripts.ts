/**
 * Built-in scripts, used by `tandem demo` and by tests.
 *
 * `readmeDemo` replays the seed walkthrough "create README.md" (seed 002, sections 四–八):
 * the four model responses R1–R4 with the seed's exact ids and argument strings, so a run
 * against it produces the seed's request bodies. `questionDemo` is a plan-mode scenario
 * that asks the user two questions through `request_user_input` before acting.
 */
import type { Script } from "./script.js";

export interface DemoOptions {
  /** Pause before each streamed delta, so the demo visibly streams. Default 0. */
  tokenDelayMs?: number;
}

/** The seed's R1–R4 argument strings, verbatim (the JSON text of each `arguments` field). */
export const README_DEMO_ARGUMENTS = {
  check: String.raw`{"cmd":"printf 'README absent\\n'","yield_time_ms":1000}`,
  write: String.raw`{"cmd":"cat > README.md <<'EOF'\n# Codex Demo\n\n这是一个使用 Rust 编写的 Agent 项目。\nEOF","yield_time_ms":1000}`,
  verify: `{"cmd":"cat README.md","yield_time_ms":1000}`,
} as const;

export const README_DEMO_FINAL = "README.md 已创建并完成验证，内容符合你给出的标题和中文说明。";

/** The user prompt the readme demo answers (the seed's first user message). */
export const README_DEMO_PROMPT =
  "请创建 README.md，内容如下：\n\n# Codex Demo\n\n这是一个使用 Rust 编写的 Agent 项目。";

/** The same task in English: what `tandem demo` runs unless `--seed` asks for the seed's words. */
export const README_DEMO_ENGLISH = {
  prompt: "Create README.md with this content:\n\n# Tandem Demo\n\nAn agent project written in Rust.",
  arguments: {
    check: README_DEMO_ARGUMENTS.check,
    write: String.raw`{"cmd":"cat > README.md <<'EOF'\n# Tandem Demo\n\nAn agent project written in Rust.\nEOF","yield_time_ms":1000}`,
    verify: README_DEMO_ARGUMENTS.verify,
  },
  final: "README.md is created and verified: it has the title and the description you asked for.",
} as const;

/**
 * The "create README.md" walkthrough: the seed's exact words by default (golden tests depend on
 * them), or the same four steps in English with `english: true`.
 */
export function readmeDemo(opts: DemoOptions & { english?: boolean } = {}): Script {
  const pace = opts.tokenDelayMs ? { token_delay_ms: opts.tokenDelayMs } : {};
  const args = opts.english ? README_DEMO_ENGLISH.arguments : README_DEMO_ARGUMENTS;
  const final = opts.english ? README_DEMO_ENGLISH.final : README_DEMO_FINAL;
  const exec = (n: string, args: string) => ({
    type: "function_call" as const,
    id: `fc_00${n}`,
    call_id: `call_00${n}`,
    name: "exec_command",
    arguments: args,
  });
  return {
    description: "Seed walkthrough: create README.md, check, write, verify, report.",
    steps: [
      {
        note: "R1: check whether README.md exists",
        output: [exec("1", args.check)],
        ...pace,
      },
      { note: "R2: write README.md", output: [exec("2", args.write)], ...pace },
      { note: "R3: read it back", output: [exec("3", args.verify)], ...pace },
      { note: "R4: final answer", output: [{ type: "message", text: final }], ...pace },
    ],
  };
}

/** The `request_user_input` arguments of the question demo's first step. */
export const QUESTION_DEMO_QUESTIONS = {
  questions: [
    {
      id: "stack",
      header: "Stack",
      question: "Which stack should the demo project use?",
      options: [
        {
          label: "TypeScript (Recommended)",
          description: "Node 20 with strict ESM; fastest to set up here.",
        },
        { label: "Rust", description: "A cargo binary crate; needs a Rust toolchain installed." },
      ],
    },
    { id: "name", header: "Name", question: "What should the project be called?" },
  ],
};

export const QUESTION_DEMO_FINAL =
  "Created README.md for the demo project. Tell me if you want me to scaffold the project next.";

export function questionDemo(opts: DemoOptions = {}): Script {
  const pace = opts.tokenDelayMs ? { token_delay_ms: opts.tokenDelayMs } : {};
  return {
    description: "Plan mode: ask two questions with request_user_input, then write a README.",
    steps: [
      {
        note: "Ask which stack and which name",
        output: [
          { type: "reasoning", summary: "I need the stack and the project name before writing anything." },
          {
            type: "function_call",
            id: "fc_q01",
            call_id: "call_q01",
            name: "request_user_input",
            arguments: QUESTION_DEMO_QUESTIONS,
          },
        ],
        ...pace,
      },
      {
        note: "Write the README",
        output: [
          {
            type: "function_call",
            id: "fc_q02",
            call_id: "call_q02",
            name: "exec_command",
            arguments: { cmd: "printf '# Demo\\n' > README.md", yield_time_ms: 1000 },
          },
        ],
        ...pace,
      },
      { note: "Report", output: [{ type: "message", text: QUESTION_DEMO_FINAL }], ...pace },
    ],
  };
}

/** What the scripted demos answer once their steps have run out (a follow-up message). */
export const DEMO_ENDED_MESSAGE =
  "The scripted demo has ended; set OPENAI_API_KEY to continue with a real model.";

/**
 * The scaffold command of `projectDemo`: the stack and name answers are filled in by the
 * scripted model (`{{answer:…|slug}}`, shell-safe), and the shell picks the Rust or the
 * TypeScript layout.
 */
export const PROJECT_DEMO_COMMAND = [
  "stack='{{answer:stack|slug}}'; name='{{answer:name|slug}}'",
  'case "$stack" in',
  '  rust*) mkdir -p src && printf \'[package]\\nname = "%s"\\nversion = "0.1.0"\\nedition = "2021"\\n\' "$name" > Cargo.toml && printf \'fn main() {\\n    println!("Hello from %s!");\\n}\\n\' "$name" > src/main.rs ;;',
  '  *) mkdir -p src && printf \'{\\n  "name": "%s",\\n  "version": "0.1.0",\\n  "type": "module"\\n}\\n\' "$name" > package.json && printf \'console.log("Hello from %s!");\\n\' "$name" > src/index.ts ;;',
  "esac",
  "printf '# %s\\n\\nA {{answer:stack|slug}} project.\\n' \"$name\" > README.md && ls -R",
].join("\n");

export const PROJECT_DEMO_FINAL =
  "Created **{{answer:name|slug}}** as a {{answer:stack}} project with a README. " +
  "Tell me if you want more scaffolding.";

/**
 * The TUI demo (`tandem demo --tui`): the question demo's two questions, then a project that
 * follows the answers (Rust → Cargo.toml + src/main.rs, else package.json + src/index.ts), then a
 * report naming them; a follow-up after that gets `DEMO_ENDED_MESSAGE`.
 */
export function projectDemo(opts: DemoOptions = {}): Script {
  const pace = opts.tokenDelayMs ? { token_delay_ms: opts.tokenDelayMs } : {};
  const [ask] = questionDemo(opts).steps;
  return {
    description: "Plan mode: ask the stack and name, then scaffold that project.",
    ended_message: DEMO_ENDED_MESSAGE,
    steps: [
      ask,
      {
        note: "Scaffold the project the user chose",
        output: [
          {
            type: "function_call",
            id: "fc_q02",
            call_id: "call_q02",
            name: "exec_command",
            arguments: { cmd: PROJECT_DEMO_COMMAND, yield_time_ms: 2000 },
          },
        ],
        ...pace,
      },
      { note: "Report", output: [{ type: "message", text: PROJECT_DEMO_FINAL }], ...pace },
    ],
  };
}
