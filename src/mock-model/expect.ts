/**
 * What the scripted model's two transports (server.ts over HTTP, responses-ws.ts over WebSocket)
 * share about a step: whether a request meets its `expect`, and a pause that ends early when the
 * client goes away. Kept apart so neither transport imports the other (ARCHITECTURE.md).
 */
import { setTimeout as sleep } from "node:timers/promises";
import type { Step } from "./script.js";

/** The error message when the request misses a string of the step's `expect`, else undefined. */
export function unmetExpectation(
  step: Step,
  stepNumber: number | string,
  body: unknown,
  raw: string,
): string | undefined {
  const missing = (step.expect?.input_contains ?? []).filter((needle) => !contains(raw, body, needle));
  if (missing.length === 0) return undefined;
  const list = missing.map((s) => JSON.stringify(s)).join(", ");
  const where = typeof stepNumber === "number" ? `step ${stepNumber}` : stepNumber;
  return `mock-model: ${where} expectation failed: the request does not contain ${list} (expect.input_contains)`;
}

/** Waits `ms`; false when the client went away first. */
export async function pause(ms: number, signal: AbortSignal): Promise<boolean> {
  try {
    await sleep(ms, undefined, { signal });
    return true;
  } catch {
    return false;
  }
}

/** True when `needle` occurs in the raw body, its re-serialisation, or any string value in it. */
export function contains(raw: string, body: unknown, needle: string): boolean {
  if (raw.includes(needle) || JSON.stringify(body).includes(needle)) return true;
  const visit = (value: unknown): boolean => {
    if (typeof value === "string") return value.includes(needle);
    if (Array.isArray(value)) return value.some(visit);
    if (typeof value === "object" && value !== null) return Object.values(value).some(visit);
    return false;
  };
  return visit(body);
}
