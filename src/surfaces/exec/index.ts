/**
 * `tandem exec` (requirements S2, Q12): one headless turn. Human output or Codex-compatible JSONL.
 *
 * Questions: none are offered unless `--questions` is given. `defer` stops at the first
 * question (printed as text or a `question.requested` JSON line), keeps it pending in the
 * store and exits 3; `tandem exec resume <thread> --answer id=value` answers it and the turn
 * continues. Secret questions are answered from stdin or a file, never argv (answers.ts). `stdin` asks inline when stdin is a TTY (otherwise no responder is attached and
 * the model is told no one can answer — it never waits).
 */

import { readFileSync } from "node:fs";
import { resolve } from "node:path";
import { createInterface } from "node:readline/promises";
import { Writable } from "node:stream";
import { imageDataUrl } from "../../host/image-file.js";
import type { Event } from "../../protocol/events.js";
import type { QuestionAnswer, QuestionReply, QuestionRequest } from "../../protocol/questions.js";
import { parseTextReply } from "../../questions/text-reply.js";
import type { Runtime } from "../../runtime/core.js";
import { printable } from "../../util/printable.js";
import { terminalText } from "../../util/terminal-text.js";
import { runSurface } from "../shared/startup.js";
import {
  collectAnswers,
  type GivenAnswers,
  replyFromAnswers,
  secretAnswerHelp,
  unknownAnswerIds,
} from "./answers.js";
import { EXEC_USAGE, type ExecArgs, parseExecArgs, UsageError } from "./args.js";
import { formatQuestion, HumanPrinter } from "./human.js";
import { inputNeededLine, JsonlMapper, questionLine } from "./jsonl.js";

/** A sub-agent's events that `--json` prints (wrapped as `subagent.event`); deltas are left out. */
const SUBAGENT_EVENTS = new Set(["thread.started", "turn.started", "item.completed", "turn.completed"]);

export const EXIT = { ok: 0, failed: 1, usage: 2, needsInput: 3 } as const;

async function readStdin(): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const c of process.stdin) chunks.push(c as Buffer);
  return Buffer.concat(chunks).toString("utf8");
}

async function askInline(request: QuestionRequest): Promise<QuestionReply | undefined> {
  // Echo goes through this stream so a secret answer can be typed without being shown.
  let muted = false;
  const echo = new Writable({
    write(chunk, _enc, cb) {
      if (!muted) process.stderr.write(chunk);
      cb();
    },
  });
  const rl = createInterface({ input: process.stdin, output: echo, terminal: true });
  try {
    process.stderr.write(formatQuestion(request));
    const answers: Record<string, QuestionAnswer> = {};
    for (const q of request.questions) {
      while (true) {
        const asking = rl.question(`${printable(q.id)}${q.secret ? " (hidden)" : ""}> `);
        muted = q.secret;
        const text = (await asking).trim();
        muted = false;
        if (q.secret) process.stderr.write("\n");
        if (!text) break;
        const r = parseTextReply(q, text);
        if (r.ok) {
          answers[q.id] = r.answer;
          break;
        }
        process.stderr.write(`  ${terminalText(r.error)}\n`);
      }
    }
    return Object.keys(answers).length ? { answers } : undefined;
  } finally {
    rl.close();
  }
}

/** How to answer a deferred request; secret questions are answered on stdin or from a file. */
function resumeHint(threadId: string, request: QuestionRequest): string {
  const args = request.questions.map((q) => `--answer ${q.id}=${q.secret ? "-" : "…"}`);
  const lines = [`answer with: tandem exec resume ${threadId} ${args.join(" ")}`];
  for (const q of request.questions.filter((x) => x.secret))
    lines.push(`  "${q.id}" is secret: never put its value on the command line; ${secretAnswerHelp(q.id)}`);
  return lines.join("\n");
}

export async function runExec(argv: string[]): Promise<number> {
  let args: ExecArgs;
  try {
    args = parseExecArgs(argv);
  } catch (err) {
    if (err instanceof UsageError) {
      process.stderr.write(`tandem exec: ${err.message}\n\n${EXEC_USAGE}\n`);
      return EXIT.usage;
    }
    throw err;
  }
  let prompt = args.prompt;
  const answering = args.answers.length > 0 || !!args.answerJson || args.answerFile !== undefined;
  let given: GivenAnswers = { texts: [], typed: [] };
  if (answering) {
    if (!args.resumeId) {
      process.stderr.write(
        "tandem exec: --answer, --answer-file and --answer-json need `exec resume <id>`\n",
      );
      return EXIT.usage;
    }
    const collected = await collectAnswers(args);
    if (!collected.ok) {
      process.stderr.write(`tandem exec: ${collected.error}\n`);
      return EXIT.usage;
    }
    given = collected.given;
  }
  if ((prompt === undefined && !args.resumeId) || prompt === "-") {
    if (process.stdin.isTTY && prompt !== "-") {
      process.stderr.write(`tandem exec: no prompt given\n\n${EXEC_USAGE}\n`);
      return EXIT.usage;
    }
    prompt = (await readStdin()).trim();
    if (!prompt) {
      process.stderr.write("tandem exec: the prompt read from stdin is empty\n");
      return EXIT.usage;
    }
  } else if (prompt === undefined && args.resumeId && !answering && !process.stdin.isTTY) {
    const text = (await readStdin()).trim();
    if (text) prompt = text;
  }

  // The shared start-up (surfaces/shared/startup.ts): the runtime from -c/-m, SIGINT/SIGTERM (the
  // runtime shuts down — running commands killed, pending questions left stored for
  // `exec resume` — exit 130/143), and the shutdown whatever the run's end.
  return runSurface(
    { name: "exec", flags: { ...args, "log-file": args.logFile } },
    ({ runtime, signal, stopped, after }) =>
      run(runtime, args, { prompt, given, answering, signal, stopped, after }),
  );
}

/** The run itself, once the runtime exists; resolves with the exit code (EXIT). */
async function run(
  runtime: Runtime,
  args: ExecArgs,
  o: {
    prompt?: string;
    given: GivenAnswers;
    answering: boolean;
    signal: AbortSignal;
    stopped: Promise<void>;
    /** Runs a step after the runtime's shutdown (surfaces/shared/startup.ts). */
    after: (step: () => unknown) => void;
  },
): Promise<number> {
  const { prompt, given, answering, stopped } = o;
  if (args.resumeId) {
    // A unique prefix (or the web page's short id) names the thread.
    const ref = runtime.threads.resolve(args.resumeId);
    if (!ref.ok) {
      const hint = ref.reason === "not_found" ? "; run `tandem threads` to list threads" : "";
      process.stderr.write(`tandem exec: ${ref.message}${hint}\n`);
      return ref.reason === "not_found" ? EXIT.failed : EXIT.usage;
    }
    args.resumeId = ref.id;
  }

  let outputSchema: Record<string, unknown> | undefined;
  try {
    if (args.outputSchema) outputSchema = JSON.parse(readFileSync(args.outputSchema, "utf8"));
  } catch (err) {
    process.stderr.write(
      `tandem exec: cannot read --output-schema ${args.outputSchema}: ${(err as Error).message}\n`,
    );
    return EXIT.usage;
  }

  const write = (obj: unknown) => process.stdout.write(`${JSON.stringify(obj)}\n`);
  const mapper = new JsonlMapper(write);
  const printer = new HumanPrinter(
    process.stdout,
    process.stderr,
    Boolean(process.stderr.isTTY) && !process.env.NO_COLOR,
  );
  // The --questions choice is stored with the thread: a resume without the flag keeps it.
  const stored = args.resumeId
    ? runtime.threads.stored(args.resumeId)?.settings.headless_questions
    : undefined;
  const questions = args.questions ?? stored;
  const interactive = questions === "stdin" && Boolean(process.stdin.isTTY);
  const offerQuestions = questions !== undefined;

  let deferred: QuestionRequest | undefined;
  let deferResolve: (() => void) | undefined;
  const deferredSignal = new Promise<void>((r) => {
    deferResolve = r;
  });
  let threadId = "";
  // `thread.started` is the first JSONL line, also on a resume whose re-asked question starts
  // its turn while the thread opens.
  let announced = false;
  const announce = (id: string) => {
    if (!args.json || announced) return;
    announced = true;
    write({ type: "thread.started", thread_id: id });
  };
  // Questions re-asked while a resumed thread opens are answered from --answer first; only
  // questions that remain (or arrive later) are deferred.
  let ready = !args.resumeId;
  const onEvent = (event: Event) => {
    if ("thread_id" in event && threadId && event.thread_id !== threadId) {
      // A sub-agent's events (README "Sub-agents"): its questions are ours to show and answer; with --json
      // its turns and items are printed too, wrapped with who it is (Codex clients ignore them).
      const agent = event.thread_id ? runtime.agents.info(event.thread_id) : undefined;
      if (!agent || !runtime.agents.lineage(agent.thread_id).includes(threadId)) return;
      if (!event.type.startsWith("question.")) {
        if (args.json && SUBAGENT_EVENTS.has(event.type)) write({ type: "subagent.event", agent, event });
        return;
      }
    }
    if (args.resumeId) announce(args.resumeId);
    if (event.type === "question.requested" && questions === "defer") {
      if (ready && !deferred) {
        deferred = event.request;
        deferResolve?.();
      }
      return;
    }
    if (event.type === "question.requested" && interactive) {
      void askInline(event.request).then((reply) => {
        const r = reply
          ? runtime.questions.reply(event.thread_id, event.request.request_id, reply, { kind: "exec" })
          : runtime.questions.decline(
              event.thread_id,
              event.request.request_id,
              { kind: "exec" },
              "no answer typed",
            );
        if (!r.ok) process.stderr.write(`tandem exec: ${terminalText(r.message)}\n`);
      });
    }
    if (args.json) mapper.handle(event);
    else printer.handle(event);
  };
  const sub = runtime.subscribe((s) => onEvent(s.event));

  const cwd = resolve(args.cd ?? process.cwd());
  let code: number = EXIT.ok;
  try {
    // A run that can answer (defer, a TTY, or --answer on resume) is a responder; attached
    // before a resumed thread opens, so re-asked approvals see it.
    const responds = questions === "defer" || interactive || answering;
    if (args.resumeId && responds) runtime.questions.attach({ threadId: args.resumeId }, { kind: "exec" });
    const thread = args.resumeId
      ? runtime.threads.open(args.resumeId, {
          offerQuestions,
          headlessQuestions: questions,
          mode: args.mode,
          model: args.model,
        })
      : runtime.threads.start({
          cwd,
          mode: args.mode,
          offerQuestions,
          headlessQuestions: questions,
          outputSchema,
          model: args.model,
          writableRoots: args.addDir.map((d) => resolve(d)),
        });
    threadId = thread.id;
    if (!args.json)
      printer.header({
        model: thread.record.model,
        cwd: thread.record.cwd,
        sandbox: thread.sandbox().mode,
        approvals: thread.approvalPolicy(),
        threadId: thread.id,
      });
    if (!args.resumeId && responds) runtime.questions.attach({ threadId: thread.id }, { kind: "exec" });

    if (args.resumeId) {
      announce(thread.id);
      await Promise.race([runtime.questions.reasked(thread.id), stopped]);
      const pending = runtime.questions.list({ threadId: thread.id });
      // Every answer is checked before any is sent: a refused one leaves all questions pending.
      const replies = pending.map((request) => ({ request, ...replyFromAnswers(request, given) }));
      // An answer id that matches no pending question is a typo: refused, nothing sent.
      const unknown = pending.length ? unknownAnswerIds(pending, given) : [];
      const errors = [...unknown, ...replies.flatMap((r) => r.errors)];
      for (const e of errors) process.stderr.write(`tandem exec: ${terminalText(e)}\n`);
      if (errors.length) return EXIT.usage;
      for (const { request, reply } of replies) {
        if (!reply) continue;
        const r = runtime.questions.reply(thread.id, request.request_id, reply, { kind: "exec" });
        if (!r.ok) {
          process.stderr.write(`tandem exec: ${terminalText(r.message)}\n`);
          return EXIT.usage;
        }
      }
      ready = true;
      const still = runtime.questions.list({ threadId: thread.id });
      if (still.length && !interactive) {
        deferred = still[0];
      } else if (answering && !pending.length) {
        process.stderr.write(`tandem exec: thread ${thread.id} has no pending question to answer\n`);
        return EXIT.usage;
      }
    }

    const runTurnAndWait = async (turnDone: Promise<unknown>) => {
      await Promise.race([turnDone, deferredSignal, stopped]);
    };
    if (!deferred && thread.active) await runTurnAndWait(thread.active.done);
    if (!deferred && prompt && !o.signal.aborted) {
      const images: string[] = [];
      for (const path of args.images) {
        const r = imageDataUrl(path, process.cwd());
        if ("error" in r) {
          process.stderr.write(`tandem exec: --image: ${r.error}\n`);
          return EXIT.usage;
        }
        images.push(r.url);
      }
      const turn = thread.startTurn(prompt, {
        images,
        options: { mode: args.mode, output_schema: outputSchema },
      });
      await runTurnAndWait(turn.done);
    }
    // Stopped by a signal: the shared start-up exits 130/143 whatever this says.
    if (o.signal.aborted) {
      code = EXIT.failed;
    } else if (deferred) {
      const hint = resumeHint(thread.id, deferred);
      if (args.json) {
        write(questionLine(deferred));
        // A terminal event Codex SDK clients read (Thread.run throws with this message).
        write(inputNeededLine(deferred, hint));
      } else printer.question(deferred, hint);
      code = EXIT.needsInput;
    } else {
      const outcome = thread.lastOutcome;
      code = !outcome || outcome.status === "completed" ? EXIT.ok : EXIT.failed;
    }
  } catch (err) {
    process.stderr.write(`tandem exec: ${terminalText((err as Error).message)}\n`);
    code = EXIT.failed;
  } finally {
    // Stopped by a signal: the shutdown ends the running command, and the printer still says
    // how it ended (its output so far, "interrupted (killed, exit N)"); it stops listening after.
    if (o.signal.aborted) o.after(() => sub.unsubscribe());
    else sub.unsubscribe();
  }
  return code;
}
