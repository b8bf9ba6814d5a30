/**
 * Tandem's command line. Parses the subcommand and loads only that surface (dynamic import),
 * so `tandem --version` and `tandem --help` touch nothing heavy.
 */
declare const __TANDEM_VERSION__: string | undefined;

const HELP = `tandem — a coding agent runtime with a durable question protocol

Usage:
  tandem [options] [PROMPT]            the terminal UI (its options below)
  tandem demo [--json] [--seed] [--keep] run the whole loop offline on the built-in SCRIPTED model
  tandem demo --tui                    the terminal UI on the scripted model, with a question to answer
  tandem app-server [--listen ws://127.0.0.1:PORT]
                                       JSON-RPC (Codex app-server v2 compatible) over stdio or websocket
  tandem mcp-server                    Tandem as an MCP server over stdio (tools: tandem, tandem_reply)
  tandem serve [--port N] [--host H]   HTTP API + SSE + a web page to answer questions from
  tandem acp                           Agent Client Protocol agent over stdio (for editors)
  tandem exec [options] PROMPT         run one headless turn (see \`tandem exec --help\`)
  tandem exec resume ID [PROMPT]       continue a thread (answer deferred questions with --answer)
  tandem resume ID [options]           same as \`tandem exec resume\`
  tandem doctor [--json]               check this machine and the configuration, say how to fix each problem
  tandem login [--status] | logout     store (or forget) an API key, asked as a secret; used without OPENAI_API_KEY
  tandem review [--base B | --commit SHA | TEXT] [--json]
                                       review the uncommitted changes (or a branch, a commit), read-only
  tandem threads                       list threads
  tandem export ID                     print a thread's history as JSONL
  tandem rules [list | remove N]       the approval rules remembered for this project
  tandem skills [list]                 the skills and custom commands usable here
  tandem hooks [list | trust]          the hooks that apply here (hooks.json), trusting project hooks
  tandem mcp [list | get | add | remove]
                                       the MCP servers whose tools threads offer (see \`tandem mcp --help\`)
  tandem mock-model --script FILE [--port N] [--log FILE] [--log-file FILE]
                                       serve a scripted model over HTTP (Responses + Chat Completions)
                                       and WebSocket (Responses, on /v1/responses)
  tandem --version

Every subcommand accepts -c/--config key=value and -h/--help (its own flags); -m/--model
where a model runs (the terminal UI, exec, resume, review, serve, app-server, acp, mcp-server, doctor).
A thread ID may be any unique prefix or suffix of the id (lists show its last 8 characters).
Debug log: TANDEM_LOG=debug|trace, or --log-file FILE on the commands that run a model or a server.
State lives in $TANDEM_HOME (default ~/.tandem).`;

/** Inlined by the bundler; from package.json when running sources (tsx). */
async function version(): Promise<string> {
  if (typeof __TANDEM_VERSION__ === "string") return __TANDEM_VERSION__;
  const { createRequire } = await import("node:module");
  return (createRequire(import.meta.url)("../package.json") as { version: string }).version;
}

const MOCK_MODEL_USAGE = `Usage: tandem mock-model --script FILE [--port N] [--host H] [--log FILE] [--log-file FILE]

Serves a scripted model over HTTP (Responses and Chat Completions wires) and WebSocket (Responses,
upgrade on /v1/responses) for demos and tests;
prints "mock-model listening on URL" once it listens. Script format: docs/mock-model.md.

Options:
  --script FILE             the script to replay (required)
  --port N                  port to listen on (default 0: a free port)
  --host H                  interface to bind (default 127.0.0.1)
  --log FILE                append each request body received as one JSON line
  --log-file FILE           write Tandem's debug log to FILE (level: $TANDEM_LOG, else debug)
  -h, --help                show this help`;

async function mockModel(argv: string[]): Promise<number> {
  const { parseArgs } = await import("node:util");
  let v: { script?: string; port?: string; log?: string; host?: string; "log-file"?: string; help?: boolean };
  try {
    v = parseArgs({
      args: argv,
      options: {
        script: { type: "string" },
        port: { type: "string" },
        log: { type: "string" },
        host: { type: "string" },
        "log-file": { type: "string" },
        help: { type: "boolean", short: "h" },
        config: { type: "string", short: "c", multiple: true },
      },
    }).values;
  } catch (err) {
    const { argError } = await import("./util/cli-args.js");
    process.stderr.write(`tandem mock-model: ${argError(err)}\n\n${MOCK_MODEL_USAGE}\n`);
    return 2;
  }
  if (v.help) {
    process.stdout.write(`${MOCK_MODEL_USAGE}\n`);
    return 0;
  }
  if (!v.script) {
    process.stderr.write("tandem mock-model: --script FILE is required (format: docs/mock-model.md)\n");
    return 2;
  }
  const port = v.port === undefined ? 0 : Number(v.port);
  if (!Number.isInteger(port) || port < 0 || port > 65535) {
    process.stderr.write(`tandem mock-model: --port must be 0-65535, got "${v.port}"\n`);
    return 2;
  }
  (await import("./util/log-file.js")).startLog({ surface: "mock-model", file: v["log-file"] });
  const { runMockModelCommand, MockModelScriptError } = await import("./mock-model/index.js");
  try {
    return await runMockModelCommand({ script: v.script, port, log: v.log, host: v.host });
  } catch (err) {
    process.stderr.write(`tandem mock-model: ${(err as Error).message}\n`);
    return err instanceof MockModelScriptError ? 2 : 1;
  }
}

/** The terminal UI's first frame, before its modules load (surfaces/tui/early-frame.ts); not for --help. */
async function earlyFrame(argv: string[]): Promise<void> {
  if (argv.includes("-h") || argv.includes("--help")) return;
  (await import("./surfaces/tui/early-frame.js")).drawEarlyFrame();
}

/**
 * Commands that run once and exit (not the terminal UI or a server). Their young generation
 * stays at V8's first size (1 MiB semi-spaces): while modules load nearly everything allocated
 * survives, so V8 doubled it to 4 MiB, ~4 MiB of a README-task `tandem exec`'s ~70 MiB peak RSS
 * (issue 30 item 2), where more frequent scavenges cost it no measurable time (npm run bench).
 */
const ONE_SHOT = new Set([
  "exec",
  "resume",
  "review",
  "threads",
  "export",
  "rules",
  "hooks",
  "skills",
  "mcp",
  "doctor",
  "login",
  "logout",
]);

async function main(argv: string[]): Promise<number> {
  const [cmd, ...rest] = argv;
  if (cmd !== undefined && ONE_SHOT.has(cmd))
    (await import("node:v8")).setFlagsFromString("--semi-space-growth-factor=1");
  switch (cmd) {
    case "--version":
    case "-V":
      process.stdout.write(`tandem ${await version()}\n`);
      return 0;
    case "--help":
    case "-h":
    case "help":
      {
        // The terminal UI's own flags, from the one place that parses them.
        const { TUI_OPTIONS } = await import("./surfaces/tui/args.js");
        process.stdout.write(`${HELP}\n\nThe terminal UI (tandem [options] [PROMPT]):\n${TUI_OPTIONS}\n`);
      }
      return 0;
    case "review": {
      const { runReview } = await import("./surfaces/exec/review-cmd.js");
      return runReview(rest);
    }
    case "exec":
    case "resume": {
      const { wantsHelp } = await import("./util/cli-args.js");
      if (wantsHelp(rest)) {
        const { EXEC_USAGE } = await import("./surfaces/exec/args.js");
        const same =
          cmd === "resume" ? "tandem resume ID [options] [PROMPT] is `tandem exec resume`:\n\n" : "";
        process.stdout.write(`${same}${EXEC_USAGE}\n`);
        return 0;
      }
      const { runExec } = await import("./surfaces/exec/index.js");
      if (cmd === "exec") return runExec(rest);
      return runExec(["resume", ...rest]);
    }
    case "threads":
    case "export": {
      const { runThreadsCommand } = await import("./surfaces/exec/threads.js");
      return runThreadsCommand(cmd, rest);
    }
    case "mock-model":
      return mockModel(rest);
    case "login":
    case "logout": {
      const { runLoginCommand } = await import("./surfaces/exec/login.js");
      return runLoginCommand(cmd, rest);
    }
    case "doctor": {
      const { runDoctorCommand } = await import("./surfaces/exec/doctor.js");
      return runDoctorCommand(rest);
    }
    case "mcp": {
      const { runMcpCommand } = await import("./surfaces/exec/mcp-cmd.js");
      return runMcpCommand(rest);
    }
    case "skills": {
      const { runSkillsCommand } = await import("./surfaces/exec/skills-cmd.js");
      return runSkillsCommand(rest);
    }
    case "hooks": {
      const { runHooksCommand } = await import("./surfaces/exec/hooks-cmd.js");
      return runHooksCommand(rest);
    }
    case "rules": {
      const { runRulesCommand } = await import("./surfaces/exec/rules.js");
      return runRulesCommand(rest);
    }
    case "demo": {
      if (rest.includes("--tui")) {
        await earlyFrame(rest);
        const { runTui } = await import("./surfaces/tui/index.js");
        return runTui(
          rest.filter((a) => a !== "--tui"),
          { demo: true },
        );
      }
      const { runDemo } = await import("./surfaces/exec/demo.js");
      return runDemo(rest);
    }
    case "app-server": {
      const { runAppServer } = await import("./surfaces/app-server/index.js");
      return runAppServer(rest, {
        joinCluster: async (runtime, opts) =>
          (await import("./main/cluster-join.js")).joinCluster(runtime, opts),
      });
    }
    case "mcp-server": {
      const { runMcpServer } = await import("./surfaces/mcp-server/index.js");
      return runMcpServer(rest);
    }
    case "serve": {
      const { runServe } = await import("./surfaces/http/index.js");
      return runServe(rest);
    }
    case "acp": {
      const { runAcp } = await import("./surfaces/acp/index.js");
      return runAcp(rest);
    }
    case undefined: {
      await earlyFrame([]);
      const { runTui } = await import("./surfaces/tui/index.js");
      return runTui([]);
    }
    default:
      if (cmd.startsWith("-") && !["--version", "-V", "--help", "-h"].includes(cmd)) {
        await earlyFrame(argv);
        const { runTui } = await import("./surfaces/tui/index.js");
        return runTui(argv);
      }
      process.stderr.write(`tandem: unknown command "${cmd ?? ""}"\n\n${HELP}\n`);
      return 2;
  }
}

/**
 * Exit once the command is done, after stdout has drained: a finished command must not
 * linger on a stray handle (a keep-alive socket, a timer) — and must not lose piped output.
 */
function exit(code: number): void {
  process.exitCode = code;
  process.stdout.write("", () => process.exit(code));
}

/**
 * A configuration or store problem the user can fix (bad config value, unusable TANDEM_HOME,
 * damaged state.db): its message says what to do, so print that alone — no stack — and exit 2
 * like every other configuration error. Recognised by name / brand so this file stays light.
 */
function isUserFixable(err: unknown): err is Error {
  if (!(err instanceof Error)) return false;
  if (err.name === "ConfigError") return true;
  const isStore = (err as unknown as Record<symbol, unknown>)[Symbol.for("tandem.store.error")] === true;
  return isStore && ["open", "schema"].includes((err as Error & { code?: string }).code ?? "");
}

main(process.argv.slice(2)).then(exit, (err) => {
  if (isUserFixable(err)) {
    process.stderr.write(`tandem: ${err.message}\n`);
    exit(2);
    return;
  }
  process.stderr.write(`tandem: ${(err as Error)?.stack ?? err}\n`);
  exit(1);
});
