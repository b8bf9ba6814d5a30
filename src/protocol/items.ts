/**
 * History items: the Responses-wire `ResponseItem` shapes Tandem records and replays.
 *
 * Contract: an item parsed with these schemas keeps only the known fields, in the order the
 * schema declares them, so re-serialising a parsed item yields the canonical wire body (the
 * golden request fixtures depend on that order). Absent optional fields stay absent — never null.
 */
import * as z from "zod";

export const InputText = z.object({ type: z.literal("input_text"), text: z.string() });
export const OutputText = z.object({
  type: z.literal("output_text"),
  text: z.string(),
  annotations: z.array(z.unknown()).optional(),
});
export const InputImage = z.object({
  type: z.literal("input_image"),
  image_url: z.string().describe("data: URL or https URL of the image"),
  detail: z.enum(["auto", "low", "high"]).optional(),
});
export const ContentItem = z.discriminatedUnion("type", [InputText, OutputText, InputImage]);
export type ContentItem = z.infer<typeof ContentItem>;

export const Role = z.enum(["user", "assistant", "developer", "system"]);
export type Role = z.infer<typeof Role>;

export const MessageItem = z.object({
  type: z.literal("message"),
  id: z.string().optional(),
  role: Role,
  content: z.array(ContentItem),
});

export const ReasoningItem = z.object({
  type: z.literal("reasoning"),
  id: z.string().optional(),
  summary: z.array(z.object({ type: z.literal("summary_text"), text: z.string() })).default([]),
  content: z.array(z.object({ type: z.string(), text: z.string() })).optional(),
  encrypted_content: z.string().optional(),
});

export const FunctionCallItem = z.object({
  type: z.literal("function_call"),
  id: z.string().optional(),
  name: z.string(),
  namespace: z.string().optional(),
  arguments: z.string().describe("JSON text; the handler parses it"),
  call_id: z.string(),
});

/** A tool output is a plain string on the wire, or a content array for multi-part outputs. */
export const ToolOutputPayload = z.union([z.string(), z.array(ContentItem)]);
export type ToolOutputPayload = z.infer<typeof ToolOutputPayload>;

export const FunctionCallOutputItem = z.object({
  type: z.literal("function_call_output"),
  call_id: z.string(),
  output: ToolOutputPayload,
});

export const CustomToolCallItem = z.object({
  type: z.literal("custom_tool_call"),
  id: z.string().optional(),
  name: z.string(),
  input: z.string(),
  call_id: z.string(),
});

export const CustomToolCallOutputItem = z.object({
  type: z.literal("custom_tool_call_output"),
  call_id: z.string(),
  output: ToolOutputPayload,
});

export const ResponseItem = z.discriminatedUnion("type", [
  MessageItem,
  ReasoningItem,
  FunctionCallItem,
  FunctionCallOutputItem,
  CustomToolCallItem,
  CustomToolCallOutputItem,
]);
export type ResponseItem = z.infer<typeof ResponseItem>;
export type MessageItem = z.infer<typeof MessageItem>;
export type ReasoningItem = z.infer<typeof ReasoningItem>;
export type FunctionCallItem = z.infer<typeof FunctionCallItem>;
export type FunctionCallOutputItem = z.infer<typeof FunctionCallOutputItem>;
export type CustomToolCallItem = z.infer<typeof CustomToolCallItem>;
export type CustomToolCallOutputItem = z.infer<typeof CustomToolCallOutputItem>;
export type ToolCallItem = FunctionCallItem | CustomToolCallItem;
export type ToolOutputItem = FunctionCallOutputItem | CustomToolCallOutputItem;

export function isToolCall(item: ResponseItem): item is ToolCallItem {
  return item.type === "function_call" || item.type === "custom_tool_call";
}

export function isToolOutput(item: ResponseItem): item is ToolOutputItem {
  return item.type === "function_call_output" || item.type === "custom_tool_call_output";
}

/** Builds a user message from text (and optional image URLs). */
export function userMessage(text: string, images: string[] = []): MessageItem {
  const content: ContentItem[] = [{ type: "input_text", text }];
  for (const url of images) content.push({ type: "input_image", image_url: url });
  return { type: "message", role: "user", content };
}

/** Concatenates the text parts of a message (output_text and input_text). */
export function messageText(item: MessageItem): string {
  return item.content.map((c) => (c.type === "input_image" ? "" : c.text)).join("");
}

/** The output item that pairs with `call`, for either function or custom tools. */
export function outputFor(call: ToolCallItem, output: ToolOutputPayload): ToolOutputItem {
  return call.type === "function_call"
    ? { type: "function_call_output", call_id: call.call_id, output }
    : { type: "custom_tool_call_output", call_id: call.call_id, output };
}
