/**
 * The checks of `tandem doctor` that talk to something: the model server (`GET <base_url>/models`
 * with a short timeout, the API key only in the Authorization header), the store (opened and
 * read once), and each configured MCP server (started, its tools listed, closed). Each returns
 * Checks and never throws.
 */
import type { ResolvedProvider } from "../config/load.js";
import type { Settings } from "../config/schema.js";
import { openStore, redactStoreUrl } from "../store/index.js";
import type { Check } from "./types.js";

const MODEL_TIMEOUT_MS = 5000;

/** A fetch failure's cause in words: "connection refused", "timed out after 5 s", …. */
function reachError(err: unknown): string {
  const e = err as { name?: string; cause?: { code?: string; message?: string }; message?: string };
  if (e?.name === "TimeoutError" || e?.name === "AbortError")
    return `no answer within ${MODEL_TIMEOUT_MS / 1000} s`;
  const code = e?.cause?.code;
  if (code === "ECONNREFUSED") return "connection refused";
  if (code === "ENOTFOUND" || code === "EAI_AGAIN") return "host not found";
  return e?.cause?.message ?? e?.message ?? String(err);
}

/** The model server answers `GET /models` and lists the configured model. */
export async function checkModel(
  settings: Settings,
  provider: ResolvedProvider,
  apiKey: string | undefined,
): Promise<Check> {
  const name = "model";
  const url = `${provider.baseUrl.replace(/\/+$/, "")}/models`;
  const where = "openai_base_url, or base_url of the provider, in config.toml (or OPENAI_BASE_URL)";
  let res: Response;
  try {
    res = await fetch(url, {
      headers: apiKey ? { authorization: `Bearer ${apiKey}` } : {},
      signal: AbortSignal.timeout(MODEL_TIMEOUT_MS),
    });
  } catch (err) {
    return {
      name,
      status: "fail",
      found: `cannot reach ${url}: ${reachError(err)}`,
      fix: `start the model server, or point Tandem at a running one: ${where}`,
    };
  }
  if (res.status === 401 || res.status === 403) {
    await res.body?.cancel();
    return {
      name,
      status: "fail",
      found: `${url} refused the API key (HTTP ${res.status})`,
      fix: `check the key: \`tandem login\` again, or fix ${provider.envKey}`,
    };
  }
  if (!res.ok) {
    await res.body?.cancel();
    return {
      name,
      status: "warn",
      found: `${url} answered HTTP ${res.status}, so the model list is unknown`,
      fix: `check ${where}`,
    };
  }
  let ids: string[] = [];
  try {
    const body = (await res.json()) as { data?: Array<{ id?: unknown }> };
    ids = (body.data ?? []).map((m) => m.id).filter((id): id is string => typeof id === "string");
  } catch {
    return {
      name,
      status: "warn",
      found: `${url} answered, but not with a model list`,
      fix: `check ${where}`,
    };
  }
  if (ids.includes(settings.model))
    return { name, status: "ok", found: `${url} answers and lists "${settings.model}"` };
  const some = ids
    .slice(0, 5)
    .map((id) => `"${id}"`)
    .join(", ");
  return {
    name,
    status: "fail",
    found: `${url} answers, but "${settings.model}" is not among its ${ids.length} models${some ? ` (${some}${ids.length > 5 ? ", …" : ""})` : ""}`,
    fix: `set model = "…" in config.toml to one it lists (or pass -m)`,
  };
}

/** The store opens and can be read. */
export function checkStore(target: string): Check {
  const name = "store";
  const shown = redactStoreUrl(target);
  try {
    const store = openStore(target);
    try {
      const n = store.listThreads({ limit: 1000 }).length;
      return { name, status: "ok", found: `${shown} opens (${n >= 1000 ? "1000+" : n} threads)` };
    } finally {
      store.close();
    }
  } catch (err) {
    return {
      name,
      status: "fail",
      found: (err as Error).message,
      fix: "fix store.url in config.toml (or --store), or move the damaged file away",
    };
  }
}

/** Each enabled MCP server starts and lists its tools within its startup timeout. */
export async function checkMcp(settings: Settings): Promise<Check[]> {
  const servers = Object.entries(settings.mcp_servers).filter(([, c]) => c.enabled);
  if (servers.length === 0) return [{ name: "mcp", status: "ok", found: "no MCP servers configured" }];
  const { McpConnection } = await import("../tools/mcp/connection.js");
  return Promise.all(
    servers.map(async ([server, config]): Promise<Check> => {
      const name = `mcp:${server}`;
      try {
        const c = await McpConnection.connect({ name: server, config });
        const tools = c.tools.length;
        await c.close();
        return { name, status: "ok", found: `started, ${tools} tool${tools === 1 ? "" : "s"}` };
      } catch (err) {
        return {
          name,
          status: "fail",
          found: (err as Error).message,
          fix: `fix [mcp_servers.${server}] in config.toml (\`tandem mcp get ${server}\`), or set enabled = false`,
        };
      }
    }),
  );
}
