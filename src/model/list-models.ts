/**
 * The models a provider lists (`GET {base_url}/models`, OpenAI's and most compatible servers'
 * `{data: [{id}]}`), for the TUI's `/model` picker.
 *
 * Contract: resolves with the ids in the server's order, or undefined when the server has no
 * such list or cannot answer in time (an error status, not JSON, no `data`, a network error,
 * `timeoutMs`); reads at most 1 MB. Never throws. The API key goes only in the Authorization
 * header of this request.
 */
const MAX_BYTES = 1 << 20;

export async function listProviderModels(
  provider: { baseUrl: string; apiKey?: string | undefined },
  timeoutMs = 2000,
): Promise<string[] | undefined> {
  const url = `${provider.baseUrl.replace(/\/+$/, "")}/models`;
  try {
    const res = await fetch(url, {
      headers: provider.apiKey ? { authorization: `Bearer ${provider.apiKey}` } : {},
      signal: AbortSignal.timeout(timeoutMs),
    });
    if (!res.ok || !res.body) return undefined;
    let text = "";
    const decoder = new TextDecoder();
    for await (const chunk of res.body as unknown as AsyncIterable<Uint8Array>) {
      text += decoder.decode(chunk, { stream: true });
      if (text.length > MAX_BYTES) return undefined;
    }
    const body = JSON.parse(text) as { data?: unknown };
    if (!Array.isArray(body.data)) return undefined;
    const ids = body.data
      .map((m) => (m && typeof m === "object" ? (m as { id?: unknown }).id : undefined))
      .filter((id): id is string => typeof id === "string" && id.length > 0 && id.length <= 200);
    return [...new Set(ids)];
  } catch {
    return undefined;
  }
}
