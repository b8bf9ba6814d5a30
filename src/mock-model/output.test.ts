/** jsonLength (output.ts) feeds the scripted model's default usage; it must equal the length
 * JSON.stringify gives, or compaction triggers in tests would move. */
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { appendMeasured, jsonLength } from "./output.js";

const items = fc.array(fc.oneof(fc.jsonValue({ maxDepth: 3 }), fc.constant(undefined)));

describe("jsonLength", () => {
  it("equals JSON.stringify(value).length, for arrays built by appendMeasured too", () => {
    // fails if brackets, commas or null-for-undefined are miscounted when appending to a
    // measured prefix (the WebSocket chain), empty prefix or empty tail included.
    fc.assert(
      fc.property(items, items, items, (a, b, c) => {
        expect(jsonLength(a)).toBe(JSON.stringify(a).length);
        const ab = appendMeasured(a, b);
        expect(ab).toEqual([...a, ...b]);
        expect(jsonLength(ab)).toBe(JSON.stringify(ab).length);
        const abc = appendMeasured(ab, c);
        expect(jsonLength(abc)).toBe(JSON.stringify(abc).length);
      }),
    );
    expect(jsonLength({ messages: [1] })).toBe(JSON.stringify({ messages: [1] }).length);
    expect(jsonLength(undefined)).toBe(0);
  });
});
