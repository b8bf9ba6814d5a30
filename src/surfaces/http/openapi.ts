/**
 * `GET /openapi.json`: an OpenAPI 3.1 document generated from the zod schemas the routes
 * validate with (protocol/http.ts), so it cannot drift from what the server enforces.
 * Request bodies are rendered as their input shape (defaults optional), responses as output.
 */
import * as z from "zod";
import * as Http from "../../protocol/http.js";
import { QuestionRequest } from "../../protocol/questions.js";
import { checkpointPaths } from "./routes/checkpoints.js";

type Json = Record<string, unknown>;

const requestSchemas = {
  CreateThreadBody: Http.CreateThreadBody,
  StartTurnBody: Http.StartTurnBody,
  SteerBody: Http.SteerBody,
  ShellBody: Http.ShellBody,
  ReviewBody: Http.ReviewBody,
  ThreadSettingsBody: Http.ThreadSettingsBody,
  ReplyBody: Http.ReplyBody,
  RejectBody: Http.RejectBody,
  TouchBody: Http.TouchBody,
};

const responseSchemas = {
  Error: Http.ErrorResponse,
  ThreadSummary: Http.ThreadSummary,
  ThreadList: Http.ThreadList,
  ThreadDetail: Http.ThreadDetail,
  TurnSummary: Http.TurnSummary,
  TurnStarted: Http.TurnStarted,
  FileMatches: Http.FileMatches,
  Steered: Http.Steered,
  Interrupted: Http.Interrupted,
  CompactStarted: Http.CompactStarted,
  QuestionRequest,
  QuestionList: Http.QuestionList,
  ReplyResponse: Http.ReplyResponse,
  TouchResponse: Http.TouchResponse,
  StreamedEvent: Http.StreamedEvent,
  StreamControl: Http.StreamControl,
};

function components(schemas: Record<string, z.ZodType>, io: "input" | "output"): Record<string, Json> {
  const registry = z.registry<{ id: string }>();
  for (const [id, schema] of Object.entries(schemas)) registry.add(schema, { id });
  const out = z.toJSONSchema(registry, {
    io,
    unrepresentable: "any",
    uri: (id) => `#/components/schemas/${id}`,
  });
  const result: Record<string, Json> = {};
  for (const [id, schema] of Object.entries(out.schemas)) {
    const { $schema: _schema, $id: _id, ...rest } = schema as Json;
    result[id] = rest;
  }
  return result;
}

const THREAD_ID = "Thread id, or a unique prefix of it (or the short id the web page shows)";
const ref = (id: string) => ({ $ref: `#/components/schemas/${id}` });
const json = (id: string, description: string) => ({
  description,
  content: { "application/json": { schema: ref(id) } },
});
const error = (description: string) => json("Error", description);
const body = (id: string) => ({ required: true, content: { "application/json": { schema: ref(id) } } });
const pathId = (what: string) => ({
  name: "id",
  in: "path",
  required: true,
  schema: { type: "string" },
  description: what,
});
const common = {
  "400": error("Malformed JSON or an invalid body; the message names the field"),
  "401": error("Missing or wrong bearer token"),
  "413": error("Body larger than the limit"),
};

let cached: Json | undefined;

/** The document (built once, then reused). */
export function openApiDocument(version: string): Json {
  if (cached) return cached;
  const schemas = { ...components(responseSchemas, "output"), ...components(requestSchemas, "input") };
  const paths: Json = {
    "/thread": {
      get: {
        summary:
          "List threads, most recently updated first; with `q`, search them: every word of q as a word prefix in the title or in one user/assistant message (each hit has a `snippet`)",
        parameters: [
          {
            name: "limit",
            in: "query",
            schema: { type: "integer", minimum: 1, maximum: 1000 },
            description: "At most this many (default 100; with q default 20, at most 100)",
          },
          { name: "q", in: "query", schema: { type: "string", maxLength: 500 }, description: "Search words" },
        ],
        responses: { "200": json("ThreadList", "Threads"), "401": common["401"] },
      },
      post: {
        summary: "Create a thread",
        requestBody: body("CreateThreadBody"),
        responses: { "201": json("ThreadSummary", "The new thread"), ...common },
      },
    },
    "/thread/{id}": {
      get: {
        summary: "Read a thread: record, history items and pending questions",
        parameters: [pathId(THREAD_ID)],
        responses: {
          "200": json("ThreadDetail", "The thread"),
          "401": common["401"],
          "404": error("No such thread"),
        },
      },
    },
    "/thread/{id}/turn": {
      post: {
        summary: "Start a turn with user input",
        parameters: [pathId(THREAD_ID)],
        requestBody: body("StartTurnBody"),
        responses: {
          "202": json("TurnStarted", "The turn is running; follow it on GET /event"),
          ...common,
          "404": error("No such thread"),
          "409": error(
            "A turn is already running (steer or interrupt it), or another process drives the thread",
          ),
        },
      },
    },
    "/thread/{id}/steer": {
      post: {
        summary: "Queue input for the running turn",
        parameters: [pathId(THREAD_ID)],
        requestBody: body("SteerBody"),
        responses: {
          "202": json("Steered", "Queued"),
          ...common,
          "404": error("No such thread"),
          "409": error("No turn is running"),
        },
      },
    },
    "/thread/{id}/shell": {
      post: {
        summary:
          "Run the user's own shell command in the thread (full access, no approval, as `!cmd`): a turn of its own with one command_execution item, recorded in history for the model's next turn",
        parameters: [pathId(THREAD_ID)],
        requestBody: body("ShellBody"),
        responses: {
          "202": json("TurnStarted", "The command is running; follow it on GET /event"),
          ...common,
          "404": error("No such thread"),
          "409": error("A turn is running, or another process drives the thread"),
        },
      },
    },
    "/thread/{id}/review": {
      post: {
        summary:
          "Review changes read-only (as /review): a turn with Tandem's review prompt under a read-only sandbox and no approvals, answering with JSON findings",
        parameters: [pathId(THREAD_ID)],
        requestBody: body("ReviewBody"),
        responses: {
          "202": json("TurnStarted", "The review is running; follow it on GET /event"),
          ...common,
          "404": error("No such thread"),
          "409": error("A turn is running, or another process drives the thread"),
        },
      },
    },
    "/thread/{id}/files": {
      get: {
        summary:
          "Fuzzy-search the files of the thread's directory, for `@` mentions (sending `@path` attaches the file)",
        parameters: [
          pathId(THREAD_ID),
          {
            name: "q",
            in: "query",
            schema: { type: "string", maxLength: 500 },
            description: "What was typed after @",
          },
          { name: "limit", in: "query", schema: { type: "integer", minimum: 1, maximum: 100 } },
        ],
        responses: {
          "200": json("FileMatches", "Matching files"),
          ...common,
          "404": error("No such thread"),
        },
      },
    },
    "/thread/{id}/compact": {
      post: {
        summary:
          "Compact the thread's context: the model writes a handoff summary that replaces older history in the prompt (stored history keeps everything); events context.compacting / context.compacted follow",
        parameters: [pathId(THREAD_ID)],
        responses: {
          "202": json("CompactStarted", "Compaction started or scheduled"),
          "401": common["401"],
          "404": error("No such thread"),
          "409": error("Another process drives the thread"),
        },
      },
    },
    "/thread/{id}/settings": {
      patch: {
        summary: "Change the model, reasoning effort or mode of the thread's later turns",
        parameters: [pathId(THREAD_ID)],
        requestBody: body("ThreadSettingsBody"),
        responses: {
          "200": json("ThreadSummary", "The thread with its new settings"),
          ...common,
          "404": error("No such thread"),
          "409": error("Another process drives the thread"),
        },
      },
    },
    "/thread/{id}/interrupt": {
      post: {
        summary: "Interrupt the running turn (its pending questions are cancelled)",
        parameters: [pathId(THREAD_ID)],
        responses: {
          "200": json("Interrupted", "Done"),
          "401": common["401"],
          "404": error("No such thread"),
        },
      },
    },
    "/question": {
      get: {
        summary: "Pending questions, oldest first, across threads or for one",
        parameters: [{ name: "thread", in: "query", schema: { type: "string" } }],
        responses: {
          "200": json("QuestionList", "Pending questions"),
          "401": common["401"],
          "404": error("No such thread"),
        },
      },
    },
    "/skills": {
      get: {
        summary:
          "Skills and custom commands usable in a directory (names, descriptions, paths; never bodies)",
        parameters: [{ name: "cwd", in: "query", required: true, schema: { type: "string" } }],
        responses: {
          "200": {
            description:
              "{skills: [{name, description, path}], commands: [{name, description, argument_hint}], problems: [{path, message}]}",
            content: { "application/json": { schema: { type: "object" } } },
          },
          "400": error("cwd is not an existing absolute directory"),
          "401": common["401"],
        },
      },
    },
    "/question/{id}/reply": {
      post: {
        summary: "Answer a pending question (typed answers, or text parsed like a chat reply)",
        parameters: [pathId("Request id")],
        requestBody: body("ReplyBody"),
        responses: {
          "200": json("ReplyResponse", "Accepted (or an identical reply repeated)"),
          ...common,
          "404": error("Unknown request or thread"),
          "409": error("Already settled, cancelled, or asked by another thread"),
        },
      },
    },
    "/question/{id}/reject": {
      post: {
        summary: "Decline a pending question; the model is told the user declined",
        parameters: [pathId("Request id")],
        requestBody: body("RejectBody"),
        responses: {
          "200": json("ReplyResponse", "Declined"),
          ...common,
          "404": error("Unknown request or thread"),
          "409": error("Already settled, cancelled, or asked by another thread"),
        },
      },
    },
    "/question/{id}/touch": {
      post: {
        summary: "Snooze a timeout policy: the deadline moves to now + policy ms (Q7)",
        parameters: [pathId("Request id")],
        requestBody: { required: false, content: { "application/json": { schema: ref("TouchBody") } } },
        responses: {
          "200": json("TouchResponse", "New deadline"),
          ...common,
          "404": error("Unknown request"),
          "409": error("Already settled"),
        },
      },
    },
    "/reply/{token}": {
      get: {
        summary:
          "A reply link's question as plain text with its numbered options (no bearer token: the link's own)",
        security: [],
        parameters: [{ name: "token", in: "path", required: true, schema: { type: "string" } }],
        responses: {
          "200": { description: "The question", content: { "text/plain": { schema: { type: "string" } } } },
          "404": { description: "Dead link: unknown, expired, or its question settled (one answer for all)" },
        },
      },
      post: {
        summary:
          'Answer the link\'s one question: a text/plain reply ("2", "1,3", a label, free text, "-- note") or JSON {"text"}, at most 16 KiB',
        security: [],
        parameters: [{ name: "token", in: "path", required: true, schema: { type: "string" } }],
        requestBody: { required: true, content: { "text/plain": { schema: { type: "string" } } } },
        responses: {
          "200": { description: "Answered" },
          "400": { description: "Not a valid reply: the parser's message; the question stays pending" },
          "404": { description: "Dead link" },
          "413": { description: "Reply too large" },
        },
      },
    },
    "/reply/{token}/decline": {
      post: {
        summary: "Decline the link's one question",
        security: [],
        parameters: [{ name: "token", in: "path", required: true, schema: { type: "string" } }],
        responses: { "200": { description: "Declined" }, "404": { description: "Dead link" } },
      },
    },
    "/event": {
      get: {
        summary:
          "Server-Sent Events: every event (id = seq). Resume with Last-Event-ID or ?since=. Control events `ready` and `gap` (refetch state) carry StreamControl. `: ping` heartbeats.",
        parameters: [
          {
            name: "thread",
            in: "query",
            schema: { type: "string" },
            description: "Only this thread's events",
          },
          {
            name: "since",
            in: "query",
            schema: { type: "integer" },
            description: "Replay events after this seq",
          },
          {
            name: "responder",
            in: "query",
            schema: { type: "string" },
            description: "Declare this connection able to answer questions (e.g. web) while connected",
          },
          {
            name: "token",
            in: "query",
            schema: { type: "string" },
            description: "Bearer token (EventSource cannot send headers)",
          },
          { name: "Last-Event-ID", in: "header", schema: { type: "string" } },
        ],
        responses: {
          "200": {
            description: "Event stream",
            content: { "text/event-stream": { schema: ref("StreamedEvent") } },
          },
          "400": common["400"],
          "401": common["401"],
          "404": error("No such thread"),
        },
      },
    },
  };
  cached = {
    openapi: "3.1.0",
    info: {
      title: "Tandem HTTP API",
      version,
      description:
        "Drive Tandem threads and answer their questions. Every route except / and /openapi.json needs `Authorization: Bearer <token>`.",
    },
    servers: [{ url: "/" }],
    security: [{ bearer: [] }],
    paths: { ...paths, ...checkpointPaths },
    components: { schemas, securitySchemes: { bearer: { type: "http", scheme: "bearer" } } },
  };
  return cached;
}
