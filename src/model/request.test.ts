/**
 * bodyJson (request.ts) must send exactly what JSON.stringify would: the golden request tests
 * compare logical bodies, so a serialiser that drifted would change the wire unnoticed.
 */
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { bodyJson } from "./request.js";

const json = fc.jsonValue({ maxDepth: 4 });

describe("bodyJson", () => {
  it("is byte-identical to JSON.stringify for any body, input and tools included", () => {
    // fails if a key is dropped or reordered, an undefined field is written, or an array
    // element (including null and undefined) is serialised differently.
    fc.assert(
      fc.property(
        fc.dictionary(fc.string(), fc.oneof(json, fc.constant(undefined))),
        fc.array(fc.oneof(json, fc.constant(undefined))),
        fc.array(json),
        (rest, input, tools) => {
          const body = { ...rest, input, tools };
          expect(bodyJson(body)).toBe(JSON.stringify(body));
        },
      ),
    );
  });

  it("serialises a reused item from the cache and a new item afresh", () => {
    // fails if the cache is keyed by position or content instead of object identity.
    const a = { type: "message", role: "user", content: [{ type: "input_text", text: "one" }] };
    const first = { model: "m", input: [a], tools: [] };
    expect(bodyJson(first)).toBe(JSON.stringify(first));
    const b = { ...a, content: [{ type: "input_text", text: "two" }] };
    const second = { model: "m", input: [a, b], tools: [] };
    expect(bodyJson(second)).toBe(JSON.stringify(second));
    const swapped = { model: "m", input: [b, a], tools: [] };
    expect(bodyJson(swapped)).toBe(JSON.stringify(swapped));
  });
});
