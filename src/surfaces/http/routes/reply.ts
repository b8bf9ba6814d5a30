/**
 * Reply links (README "Answer from a chat"): `/reply/<token>` answers the one question its token
 * was minted for (runtime/reply-links.ts), for a chat bot or a teammate. No bearer token: the
 * reply token is the whole credential, and the server's token is neither needed nor accepted in
 * its place (the route never reads an Authorization header).
 *
 *   GET  /reply/<token>           the question as plain text, with its numbered options
 *   POST /reply/<token>           the answer: a text/plain body (or JSON {"text": "…"}), ≤ 16 KiB,
 *                                 UTF-8, parsed by the one text-reply parser; 200 when answered,
 *                                 400 with the parser's message when not (the question stays
 *                                 pending); a body that is not UTF-8 is a rejected reply
 *   POST /reply/<token>/decline   declines the question
 *
 * Contract: a dead link (unknown, malformed, expired, its question settled, too many rejected
 * replies) and any other method or path under /reply get the same 404 with the same body, so a
 * response tells nothing about other tokens or questions. Responses are text/plain, never cached
 * (app.ts), nosniff; a 400 may quote the reply back to its sender (the parser's message), nothing
 * else of it is echoed.
 */
import type { Context } from "hono";
import { Hono } from "hono";
import type { ContentfulStatusCode } from "hono/utils/http-status";
import type { Runtime } from "../../../runtime/core.js";
import type { ReplyLinkResult } from "../../../runtime/reply-links.js";
import { readBytes } from "../errors.js";

const UTF8 = new TextDecoder("utf-8", { fatal: true });

/** Largest reply body, in bytes. */
export const MAX_REPLY_BYTES = 16 * 1024;

const DEAD = "no such reply link: it has expired, its question was settled, or it never existed\n";

const text = (c: Context, status: ContentfulStatusCode, body: string) =>
  c.body(body.endsWith("\n") ? body : `${body}\n`, status, { "content-type": "text/plain; charset=utf-8" });

export function replyRoutes(runtime: Runtime): Hono {
  const app = new Hono();
  const links = runtime.replyLinks;
  const dead = (c: Context) => text(c, 404, DEAD);

  const result = (c: Context, r: ReplyLinkResult, done: string) => {
    if (r.ok) return text(c, 200, done);
    if (r.code === "not_found") return dead(c);
    return text(c, 400, r.message);
  };

  app.get("/:token", (c) => {
    const shown = links.text(c.req.param("token"));
    return shown === undefined ? dead(c) : text(c, 200, shown);
  });

  app.post("/:token", async (c) => {
    const token = c.req.param("token");
    // A dead link is told so before its body is read.
    if (links.text(token) === undefined) return dead(c);
    const type = (c.req.header("content-type") ?? "text/plain").toLowerCase();
    const json = /^application\/(?:[\w.+-]+\+)?json\b/.test(type);
    if (!json && !type.startsWith("text/plain")) {
      const r = links.refuse(token, 'send the reply as text/plain, or as JSON {"text": "…"}');
      return r.ok || r.code !== "invalid_reply" ? dead(c) : text(c, 415, r.message);
    }
    const bytes = await readBytes(c.req.raw.body, MAX_REPLY_BYTES);
    if (bytes === "too_large" || bytes === "failed") {
      const why =
        bytes === "too_large"
          ? `the reply exceeds ${MAX_REPLY_BYTES} bytes; send less`
          : "could not read the reply";
      const r = links.refuse(token, why);
      return r.ok || r.code !== "invalid_reply"
        ? dead(c)
        : text(c, bytes === "too_large" ? 413 : 400, r.message);
    }
    // Not UTF-8 is refused, not read with U+FFFD in place of the bad bytes: the answer would
    // reach the model as text nobody wrote.
    let body: string;
    try {
      body = UTF8.decode(bytes);
    } catch {
      return result(c, links.refuse(token, "the reply is not valid UTF-8; send UTF-8 text"), "");
    }
    let reply = body;
    if (json) {
      let parsed: unknown;
      try {
        parsed = JSON.parse(body);
      } catch {
        parsed = undefined;
      }
      const t = (parsed as { text?: unknown } | undefined)?.text;
      if (typeof t !== "string") return result(c, links.refuse(token, 'expected JSON {"text": "…"}'), "");
      reply = t;
    }
    return result(c, links.answer(token, reply), "Answered. Thank you.");
  });

  app.post("/:token/decline", (c) => result(c, links.decline(c.req.param("token")), "Declined."));

  app.all("*", dead);
  return app;
}
