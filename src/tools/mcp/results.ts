/**
 * An MCP `CallToolResult` as a tool output (README "MCP servers"), a pure function.
 *
 * - text → text; image → an `input_image` (data: URL) so the model sees the picture;
 *   embedded resource → its text with the uri (a binary one: uri, type and size only);
 *   resource_link → the link's name and uri; audio → a note (the model gets no audio);
 * - `structuredContent` → its JSON, after the content (left out when a text part already is
 *   exactly that JSON, as servers that follow the spec's advice send);
 * - `isError` → an error output (`success: false`), content as the server wrote it.
 * Output is a plain string unless an image is present; then an array of `input_text` /
 * `input_image` parts. `display` carries a short text for surfaces (no base64).
 * The text parts together get MAX_OUTPUT_TOKENS (util/truncate's approximation): when they
 * need more, each part small enough keeps its whole text and the others share the rest equally,
 * each cut in the middle with a marker saying how many tokens were cut.
 */
import type { ContentItem } from "../../protocol/items.js";
import { approxTokens, truncateMiddle } from "../../util/truncate.js";
import type { ToolResult } from "../types.js";

export const MAX_OUTPUT_TOKENS = 10_000;

/** The fields of a CallToolResult this mapping reads (the SDK has validated the shape). */
export interface McpCallResult {
  content?: Array<Record<string, unknown> & { type: string }>;
  structuredContent?: Record<string, unknown>;
  isError?: boolean;
  /** Pre-2025 servers answer `{toolResult}` instead of content. */
  toolResult?: unknown;
}

type Part = { type: "input_text"; text: string } | { type: "input_image"; image_url: string };

const size = (base64: string) => `${Math.floor((base64.length * 3) / 4)} bytes`;

function partOf(c: Record<string, unknown> & { type: string }): Part {
  const s = (k: string) => (typeof c[k] === "string" ? (c[k] as string) : "");
  switch (c.type) {
    case "text":
      return { type: "input_text", text: s("text") };
    case "image":
      return { type: "input_image", image_url: `data:${s("mimeType") || "image/png"};base64,${s("data")}` };
    case "audio":
      return { type: "input_text", text: `[audio ${s("mimeType")}, ${size(s("data"))}, not shown]` };
    case "resource_link":
      return { type: "input_text", text: `[resource link ${s("name")}: ${s("uri")}]` };
    case "resource": {
      const r = (c.resource ?? {}) as Record<string, unknown>;
      const uri = typeof r.uri === "string" ? r.uri : "";
      if (typeof r.text === "string") return { type: "input_text", text: `[resource ${uri}]\n${r.text}` };
      const blob = typeof r.blob === "string" ? r.blob : "";
      const mime = typeof r.mimeType === "string" ? `${r.mimeType}, ` : "";
      return {
        type: "input_text",
        text: `[resource ${uri}: ${mime}${size(blob)} of binary data, not shown]`,
      };
    }
    default:
      return { type: "input_text", text: `[unsupported MCP content type "${c.type}"]` };
  }
}

function sameJson(text: string, value: unknown): boolean {
  try {
    return JSON.stringify(JSON.parse(text)) === JSON.stringify(value);
  } catch {
    return false;
  }
}

export function toToolResult(result: McpCallResult): ToolResult {
  const parts: Part[] = (result.content ?? []).map(partOf);
  if (result.content === undefined && result.toolResult !== undefined)
    parts.push({ type: "input_text", text: JSON.stringify(result.toolResult) });
  const structured = result.structuredContent;
  if (structured !== undefined && !parts.some((p) => p.type === "input_text" && sameJson(p.text, structured)))
    parts.push({ type: "input_text", text: `structuredContent: ${JSON.stringify(structured)}` });
  const texts = parts.filter((p) => p.type === "input_text");
  const budgets = shares(
    texts.map((p) => approxTokens(p.text)),
    MAX_OUTPUT_TOKENS,
  );
  texts.forEach((p, i) => {
    p.text = truncateMiddle(p.text, budgets[i]).text;
  });

  const success = result.isError !== true;
  const shown = parts.map((p) => (p.type === "input_text" ? p.text : "[image]")).join("\n");
  if (!parts.some((p) => p.type === "input_image")) return { output: shown, success };
  const output: ContentItem[] = parts;
  return { output, success, display: { output: shown } };
}

/** Splits `budget` over parts needing `sizes`: the small ones get what they need, the rest share equally. */
function shares(sizes: number[], budget: number): number[] {
  const out = [...sizes];
  let left = budget;
  let open = sizes.map((_, i) => i).sort((a, b) => sizes[a] - sizes[b]);
  while (open.length) {
    const each = Math.floor(left / open.length);
    if (sizes[open[0]] > each) {
      for (const i of open) out[i] = each;
      break;
    }
    left -= sizes[open[0]];
    open = open.slice(1);
  }
  return out;
}
