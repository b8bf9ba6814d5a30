/**
 * Session modes (Tandem's collaboration modes) as ACP modes and as the `mode` config option, and
 * the prompt's content blocks as Tandem input (pure).
 *
 * Contract:
 * - Modes `default` and `plan`; a mode set while a turn runs applies from the next prompt.
 * - The one config option is `mode` (category "mode", a select of the same two values), kept in
 *   step with `session/set_mode`.
 * - Prompt blocks: text as is; resource links as `[name](uri)`; embedded text resources as a fenced
 *   block named by their uri; images as data URLs. Audio and binary resources are refused with
 *   -32602 (the agent advertises neither).
 */
import {
  type ContentBlock,
  RequestError,
  type SessionConfigOption,
  type SessionModeState,
} from "@agentclientprotocol/sdk";
import type { CollaborationMode } from "../../protocol/events.js";

export const MODE_CONFIG_ID = "mode";

const MODES = [
  { id: "default", name: "Default", description: "Tandem works on its own and asks only for approvals" },
  {
    id: "plan",
    name: "Plan",
    description: "Tandem plans with you and may ask you questions before it acts",
  },
] as const;

export function isMode(id: string): id is CollaborationMode {
  return MODES.some((m) => m.id === id);
}

export function modeError(id: string): RequestError {
  return RequestError.invalidParams(
    { modeId: id },
    `unknown mode "${id}"; available modes: ${MODES.map((m) => m.id).join(", ")}`,
  );
}

export function modeState(current: CollaborationMode): SessionModeState {
  return { currentModeId: current, availableModes: MODES.map((m) => ({ ...m })) };
}

export function configOptions(current: CollaborationMode): SessionConfigOption[] {
  return [
    {
      id: MODE_CONFIG_ID,
      name: "Mode",
      category: "mode",
      type: "select",
      currentValue: current,
      options: MODES.map((m) => ({ value: m.id, name: m.name, description: m.description })),
    },
  ];
}

/** Text (blocks joined by blank lines) and image data URLs of a prompt. */
export function promptInput(blocks: ContentBlock[]): { text: string; images: string[] } {
  const texts: string[] = [];
  const images: string[] = [];
  blocks.forEach((b, i) => {
    switch (b.type) {
      case "text":
        texts.push(b.text);
        return;
      case "resource_link":
        texts.push(`[${b.name}](${b.uri})`);
        return;
      case "image":
        images.push(b.uri && !b.data ? b.uri : `data:${b.mimeType};base64,${b.data}`);
        return;
      case "resource":
        if ("text" in b.resource) {
          texts.push(`Context from ${b.resource.uri}:\n\`\`\`\n${b.resource.text}\n\`\`\``);
          return;
        }
        throw RequestError.invalidParams(
          { index: i },
          `prompt[${i}]: binary resources are not supported; send text or an image`,
        );
      default:
        throw RequestError.invalidParams(
          { index: i },
          `prompt[${i}]: ${b.type} content is not supported; send text, images or resources`,
        );
    }
  });
  const text = texts.join("\n\n");
  if (text.trim() === "" && images.length === 0)
    throw RequestError.invalidParams(undefined, "the prompt has no text or image");
  return { text, images };
}
