/**
 * How many tokens a model's context holds (requirements L14): `model_context_window` from the config when
 * set, else a built-in table of known model families (longest matching prefix wins), else
 * undefined — an unknown model has no known window, and nothing pretends otherwise.
 */

/** Input context of known model families, in tokens (the providers' published figures). */
const KNOWN: Array<[prefix: string, tokens: number]> = [
  ["gpt-5", 272_000],
  ["gpt-4.1", 1_047_576],
  ["gpt-4o", 128_000],
  ["o4-mini", 200_000],
  ["o3", 200_000],
  ["codex-mini", 200_000],
];

export function contextWindow(model: string, configured?: number): number | undefined {
  if (configured !== undefined) return configured;
  let best: [string, number] | undefined;
  for (const entry of KNOWN)
    if (model.startsWith(entry[0]) && (!best || entry[0].length > best[0].length)) best = entry;
  return best?.[1];
}
