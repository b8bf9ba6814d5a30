/**
 * Validates app-server messages against Codex's app-server protocol JSON Schema (ajv).
 *
 * Source: `test/fixtures/codex-app-server-protocol.schemas.json`, the complete bundle that
 * `codex app-server generate-json-schema --experimental` writes for `@openai/codex` 0.171.0
 * (copied from the project's shared reference; nothing is read from outside the repository
 * at test time). It holds every client request and server notification (v2 definitions under
 * `#/definitions/v2`), the server requests (`item/tool/requestUserInput`, approvals), client
 * notifications, `InitializeResponse` and the JSON-RPC envelopes.
 *
 * `tandem/*` messages are checked against Tandem's own zod schemas (src/protocol/app-server.ts).
 * Each check returns a list of problems (empty = valid); a message under an unknown Codex method is
 * a problem too.
 */
import { readFileSync } from "node:fs";
import { resolve } from "node:path";
import { Ajv, type ValidateFunction } from "ajv";
import * as z from "zod";
import {
  QuestionDeclineParams,
  QuestionListParams,
  QuestionReplyParams,
  QuestionTouchParams,
  TandemNotifications,
} from "../../src/protocol/app-server.js";
import { QuestionOutcome, QuestionRequest } from "../../src/protocol/questions.js";

type Zod = { safeParse(v: unknown): { success: boolean; error?: { issues: any[] } } };
const settled = z.object({ outcome: QuestionOutcome, duplicate: z.boolean() });
/** Tandem's own requests: params and result shapes (src/surfaces/app-server/handlers.ts). */
const TANDEM_REQUESTS: Record<string, { params: Zod; result: Zod }> = {
  "tandem/question/list": {
    params: QuestionListParams,
    result: z.object({ requests: z.array(QuestionRequest) }),
  },
  "tandem/question/reply": { params: QuestionReplyParams, result: settled },
  "tandem/question/decline": { params: QuestionDeclineParams, result: settled },
  "tandem/question/touch": {
    params: QuestionTouchParams,
    result: z.object({ deadline: z.number().nullable() }),
  },
};

function zodProblems(what: string, schema: Zod | undefined, value: unknown): string[] {
  if (!schema) return [`${what} is not a Tandem method`];
  const r = schema.safeParse(value);
  return r.success
    ? []
    : (r.error?.issues ?? []).map((i: any) => `${what}.${i.path.join(".")}: ${i.message}`);
}

export const REFERENCE = resolve(import.meta.dirname, "../fixtures/codex-app-server-protocol.schemas.json");

type Json = Record<string, any>;
type Variant = { method: string; pointer: string; paramsRef?: string };

function variants(bundle: Json, key: string, def: string): Variant[] {
  const out: Variant[] = [];
  (bundle.definitions[def]?.oneOf ?? []).forEach((v: Json, i: number) => {
    const method = v.properties?.method?.enum?.[0];
    if (typeof method === "string")
      out.push({
        method,
        pointer: `${key}#/definitions/${def}/oneOf/${i}`,
        paramsRef: v.properties?.params?.$ref,
      });
  });
  return out;
}

export interface CodexValidator {
  /** A client request (`{id, method, params}`). */
  clientRequest(msg: Json): string[];
  /** The server's response to a client request of `method` (result or error). */
  serverResponse(method: string, msg: Json): string[];
  serverNotification(msg: Json): string[];
  serverRequest(msg: Json): string[];
  /** The client's response to a server request of `method`. */
  clientResponse(method: string, msg: Json): string[];
  clientNotification(msg: Json): string[];
}

let cached: CodexValidator | undefined;

export function codexValidator(): CodexValidator {
  cached ??= build();
  return cached;
}

function build(): CodexValidator {
  const ref = JSON.parse(readFileSync(REFERENCE, "utf8"));
  const ajv = new Ajv({ strict: false, validateFormats: false, allErrors: true });
  ajv.addSchema(ref, "ref");
  const compiled = new Map<string, ValidateFunction>();
  const check = (pointer: string, value: unknown): string[] => {
    const fn = compiled.get(pointer) ?? ajv.compile({ $ref: pointer });
    compiled.set(pointer, fn);
    if (fn(value)) return [];
    return (fn.errors ?? [])
      .slice(0, 8)
      .map((e) => `${pointer}${e.instancePath}: ${e.message} ${JSON.stringify(e.params)}`);
  };
  const index = (list: Variant[]) => new Map(list.map((v) => [v.method, v]));
  const clientRequests = index(variants(ref, "ref", "ClientRequest"));
  const notifications = index(variants(ref, "ref", "ServerNotification"));
  const serverRequests = index(variants(ref, "ref", "ServerRequest"));
  const clientNotifications = index(variants(ref, "ref", "ClientNotification"));

  /** `#/definitions/[v2/]FooParams` → the `FooResponse` definition beside it (v2 first). */
  const responseOf = (v: Variant | undefined): string | undefined => {
    // A method without params (configRequirements/read) names its response after itself.
    const fromMethod = (m: string) =>
      `${m
        .split("/")
        .map((w) => w.charAt(0).toUpperCase() + w.slice(1))
        .join("")}Response`;
    const name = v?.paramsRef
      ? v.paramsRef
          .split("/")
          .pop()
          ?.replace(/Params$/, "Response")
      : v && fromMethod(v.method);
    if (!name) return undefined;
    // Both config writes answer Codex's one ConfigWriteResponse.
    if (v?.method === "config/value/write" || v?.method === "config/batchWrite")
      return "ref#/definitions/v2/ConfigWriteResponse";
    if (ref.definitions.v2[name]) return `ref#/definitions/v2/${name}`;
    if (ref.definitions[name]) return `ref#/definitions/${name}`;
    return undefined;
  };
  const tandem = (method: string, params: unknown): string[] =>
    zodProblems(method, (TandemNotifications as Record<string, Zod>)[method], params);
  const response = (pointer: string | undefined, method: string, msg: Json): string[] => {
    if ("error" in msg) return check("ref#/definitions/JSONRPCError", msg);
    if (method.startsWith("tandem/")) return zodProblems(method, TANDEM_REQUESTS[method]?.result, msg.result);
    if (!pointer) return [`no Codex response definition for ${method}`];
    return check(pointer, msg.result);
  };

  return {
    clientRequest(msg) {
      if (String(msg.method).startsWith("tandem/"))
        return zodProblems(msg.method, TANDEM_REQUESTS[msg.method]?.params, msg.params);
      const v = clientRequests.get(msg.method);
      return v ? check(v.pointer, msg) : [`${msg.method} is not a Codex client request`];
    },
    serverResponse(method, msg) {
      return response(responseOf(clientRequests.get(method)), method, msg);
    },
    serverNotification(msg) {
      if (String(msg.method).startsWith("tandem/")) return tandem(msg.method, msg.params);
      const v = notifications.get(msg.method);
      return v ? check(v.pointer, msg) : [`${msg.method} is not a Codex server notification`];
    },
    serverRequest(msg) {
      const v = serverRequests.get(msg.method);
      return v ? check(v.pointer, msg) : [`${msg.method} is not a Codex server request`];
    },
    clientResponse(method, msg) {
      return response(responseOf(serverRequests.get(method)), method, msg);
    },
    clientNotification(msg) {
      const v = clientNotifications.get(msg.method);
      return v ? check(v.pointer, msg) : [`${msg.method} is not a Codex client notification`];
    },
  };
}
