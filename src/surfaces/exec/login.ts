/**
 * `tandem login [--status]` and `tandem logout`: the API key of the configured provider, stored
 * sealed under $TANDEM_HOME (runtime/credentials.ts) for when the environment has none.
 *
 * - login: asks for the key as a secret (terminal: hidden input, no echo; no terminal: the first
 *   line of stdin, which must be piped) and stores it. An empty key is refused (exit 2); nothing
 *   to read is a clear error (exit 2); cancelling stores nothing (exit 1).
 * - login --status: where the key would come from (the variable, or the stored key), never its
 *   value; exit 0 when a key is available, 1 when not.
 * - logout: forgets the stored key (exit 0 either way, saying which).
 */
import { parseArgs } from "node:util";
import { ConfigError, loadConfig, resolveProvider } from "../../config/load.js";
import { credentialsFile, loadApiKey, removeApiKey, saveApiKey } from "../../runtime/credentials.js";
import { argError } from "../../util/cli-args.js";
import { readSecretLine } from "../../util/secret-input.js";

export const LOGIN_USAGE = `Usage: tandem login [-c key=value]    store an API key for the configured provider
       tandem login --status           say where the key comes from (never its value)
       tandem logout                   forget the stored key

The key is asked as a secret: on a terminal it is typed without echo; without one, it is read
from the first line of stdin (printf '%s\\n' "$KEY" | tandem login). It is stored in
$TANDEM_HOME/credentials.json (mode 0600), sealed with $TANDEM_HOME/secret.key — never in
config.toml — and used when the provider's variable (OPENAI_API_KEY, or its env_key) is not set.

Options:
  --status                  report, store nothing
  -c, --config key=value    override a config value (e.g. -c model_provider="local")
  -h, --help                show this help`;

export async function runLoginCommand(cmd: "login" | "logout", argv: string[]): Promise<number> {
  const err = (s: string) => process.stderr.write(`tandem ${cmd}: ${s}\n`);
  let v: { status?: boolean; help?: boolean; config?: string[] };
  try {
    v = parseArgs({
      args: argv,
      options: {
        status: { type: "boolean" },
        help: { type: "boolean", short: "h" },
        config: { type: "string", short: "c", multiple: true },
      },
    }).values;
  } catch (e) {
    err(`${argError(e)}\n\n${LOGIN_USAGE}`);
    return 2;
  }
  if (v.help) {
    process.stdout.write(`${LOGIN_USAGE}\n`);
    return 0;
  }
  if (cmd === "logout" && v.status) {
    err("--status is for `tandem login`");
    return 2;
  }
  const { settings, home, warnings } = loadConfig({ overrides: v.config ?? [] });
  for (const w of warnings) err(`warning: ${w}`);
  const provider = resolveProvider(settings);
  const which = `provider "${provider.id}" (${provider.baseUrl})`;
  if (cmd === "logout") {
    const gone = removeApiKey(home, provider.id);
    process.stdout.write(
      gone ? `Forgot the stored API key for ${which}.\n` : `No stored API key for ${which}.\n`,
    );
    return 0;
  }
  if (v.status) return status(home, provider, which);

  const line = await readSecretLine({ prompt: `API key for ${which}, input hidden: ` });
  if (line === null) {
    if (process.stdin.isTTY) {
      err("cancelled; nothing stored");
      return 1;
    }
    err("no terminal to ask on and nothing on stdin; pipe the key: printf '%s\\n' \"$KEY\" | tandem login");
    return 2;
  }
  const key = line.trim();
  if (!key) {
    err("the key is empty; nothing stored");
    return 2;
  }
  if (/[\s\p{Cc}]/u.test(key)) {
    err("the key contains spaces or control characters, which no API key has; nothing stored");
    return 2;
  }
  saveApiKey(home, provider.id, key);
  process.stdout.write(
    `Stored the API key for ${which} in ${credentialsFile(home)} (mode 0600, sealed with secret.key).\n` +
      `It is used when ${provider.envKey} is not set.\n`,
  );
  if (process.env[provider.envKey])
    process.stdout.write(`${provider.envKey} is set here, and wins over it.\n`);
  return 0;
}

function status(home: string, provider: ReturnType<typeof resolveProvider>, which: string): number {
  const out = (s: string) => process.stdout.write(`${s}\n`);
  let stored: string | undefined;
  let problem: string | undefined;
  try {
    stored = loadApiKey(home, provider.id);
  } catch (e) {
    if (!(e instanceof ConfigError)) throw e;
    problem = e.message;
  }
  if (provider.apiKey)
    out(`API key for ${which}: from the environment (${provider.envKey} or CODEX_API_KEY).`);
  if (stored)
    out(`${provider.apiKey ? "Also stored" : `API key for ${which}: stored`} in ${credentialsFile(home)}.`);
  if (problem) out(`The stored key cannot be used: ${problem}`);
  if (!provider.apiKey && !stored) {
    out(`No API key for ${which}: run \`tandem login\`, or set ${provider.envKey}.`);
    return 1;
  }
  return 0;
}
