/**
 * Helpers for tests that talk to the mock model with plain `fetch`: post a body, read an SSE
 * body incrementally (keeping what arrived before a dropped connection), split it into
 * events. Not used by the product.
 */

export interface SseEvent {
  /** The `event:` line, when the block had one. */
  event?: string;
  data: string;
}

/** Splits SSE text into events (blank-line separated; `event:` and `data:` lines). */
export function parseSse(text: string): SseEvent[] {
  const events: SseEvent[] = [];
  for (const block of text.split("\n\n")) {
    let event: string | undefined;
    const data: string[] = [];
    for (const line of block.split("\n")) {
      if (line.startsWith("event: ")) event = line.slice(7);
      else if (line.startsWith("data: ")) data.push(line.slice(6));
    }
    if (data.length > 0)
      events.push(event === undefined ? { data: data.join("\n") } : { event, data: data.join("\n") });
  }
  return events;
}

/** Reads a whole body; a connection dropped mid-body yields what arrived plus the error. */
export async function readBody(res: Response): Promise<{ text: string; error?: unknown }> {
  const reader = res.body!.getReader();
  const decoder = new TextDecoder();
  let text = "";
  try {
    for (;;) {
      const { done, value } = await reader.read();
      if (done) return { text: text + decoder.decode() };
      text += decoder.decode(value, { stream: true });
    }
  } catch (error) {
    return { text, error };
  }
}

/** The parsed `data` of each event (chat's `[DONE]` is kept as the string "[DONE]"). */
export async function readEvents(res: Response): Promise<{ events: any[]; error?: unknown }> {
  const { text, error } = await readBody(res);
  const events = parseSse(text).map((e) => (e.data === "[DONE]" ? e.data : JSON.parse(e.data)));
  return { events, error };
}

export function post(url: string, body: unknown, signal?: AbortSignal): Promise<Response> {
  return fetch(url, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: typeof body === "string" ? body : JSON.stringify(body),
    signal,
  });
}

/** A minimal streaming Responses request body. */
export function responsesBody(input: unknown[] = [{ role: "user", content: "hi" }]): Record<string, unknown> {
  return { model: "test-model", stream: true, input };
}

/** A minimal streaming Chat Completions request body. */
export function chatBody(includeUsage = false): Record<string, unknown> {
  const body: Record<string, unknown> = {
    model: "test-model",
    stream: true,
    messages: [{ role: "user", content: "hi" }],
  };
  if (includeUsage) body.stream_options = { include_usage: true };
  return body;
}

/** `res.json()` typed loosely for assertions. */
export async function json(res: Response): Promise<any> {
  return res.json();
}
