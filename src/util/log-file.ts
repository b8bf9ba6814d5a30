/**
 * Where the debug log (log.ts, README "Debugging") goes and when it starts.
 *
 * Contract:
 * - `startLog` is called once by each command that runs a runtime or a server, right after its flags
 *   are parsed. The level is `TANDEM_LOG` (`debug`, `trace` or `off`, any case); with `--log-file`
 *   and no `TANDEM_LOG` it is `debug`; with neither, logging stays off unless the `log_level`
 *   setting turns it on later (`applyLogSetting`, when the runtime is created). An explicit
 *   `TANDEM_LOG` (even `off`) or `--log-file` wins over the setting.
 * - A `TANDEM_LOG` that is not a level is a warning (on `warn`), never a failure; the run goes on
 *   as if it were unset.
 * - Default file: `$TANDEM_HOME/log/tandem-<YYYYMMDD>T<HHMMSS>Z-<pid>.log` (UTC). The directory is
 *   created (and kept) mode 0700 and each file 0600; before a new file is opened, files of that
 *   pattern beyond the newest KEEP_FILES - 1 or older than KEEP_DAYS days are deleted. A default
 *   file that cannot be written is a warning and logging stays off.
 * - `--log-file PATH` appends to PATH (made 0600 when it is a regular file; never pruned). A PATH
 *   that cannot be opened throws a `ConfigError`-named error (the CLI prints it and exits 2).
 * - Once on, the values of environment variables whose names say they hold a credential (KEY,
 *   SECRET, TOKEN, PASSW, CREDENTIAL) are masked in every record (log.secret).
 * - One line on `warn` says where the log goes, so whoever turned it on can find it.
 */
import {
  chmodSync,
  closeSync,
  constants,
  fchmodSync,
  fstatSync,
  lstatSync,
  mkdirSync,
  openSync,
  readdirSync,
  statSync,
  unlinkSync,
} from "node:fs";
import { homedir } from "node:os";
import { join, resolve } from "node:path";
import { attachSink, type LogLevel, log, stopLog } from "./log.js";

export const KEEP_FILES = 20;
export const KEEP_DAYS = 14;
const LOG_FILE = /^tandem-.*\.log$/;
const CREDENTIAL_VAR = /KEY|SECRET|TOKEN|PASSW|CREDENTIAL/i;

export interface StartLogOptions {
  /** The command, for the first record and messages: "exec", "app-server", … */
  surface: string;
  /** `--log-file PATH`. */
  file?: string;
  /** Read for TANDEM_LOG, TANDEM_HOME and credentials to mask (default process.env). */
  env?: NodeJS.ProcessEnv;
  /** Warnings and the "log at PATH" line (default: stderr, prefixed `tandem <surface>: `). */
  warn?: (line: string) => void;
}

/** Whether TANDEM_LOG or --log-file decided the level (then the `log_level` setting is ignored). */
let explicit = false;

/** A TANDEM_LOG or `log_level` value as a level; undefined when empty, "invalid" when not a level. */
export function parseLevel(text: string | undefined): LogLevel | undefined | "invalid" {
  const t = text?.trim().toLowerCase();
  if (!t) return undefined;
  return t === "off" || t === "debug" || t === "trace" ? t : "invalid";
}

/** See the contract. Throws (name "ConfigError") only for a `--log-file` that cannot be opened. */
export function startLog(opts: StartLogOptions): void {
  const env = opts.env ?? process.env;
  const warn = opts.warn ?? ((line: string) => process.stderr.write(`tandem ${opts.surface}: ${line}\n`));
  stopLog();
  explicit = false;
  let level = parseLevel(env.TANDEM_LOG);
  if (level === "invalid") {
    warn(`ignoring TANDEM_LOG=${JSON.stringify(env.TANDEM_LOG)}: not a log level (use debug, trace or off)`);
    level = undefined;
  }
  explicit = level !== undefined || opts.file !== undefined;
  if (opts.file !== undefined) level ??= "debug";
  if (level === undefined || level === "off") return;
  if (opts.file !== undefined) openGiven(level, opts.file);
  else if (!openDefault(level, homeOf(env), warn)) return;
  begin(opts.surface, env, warn);
}

/**
 * The `log_level` setting (config.toml, `-c log_level=…`): turns the log on in the default place
 * when neither TANDEM_LOG nor --log-file decided, and it is not on already.
 */
export function applyLogSetting(value: string | undefined, home: string, env = process.env): void {
  const level = parseLevel(value);
  if (explicit || log.level !== "off" || level === undefined || level === "invalid" || level === "off")
    return;
  const warn = (line: string) => process.stderr.write(`tandem: ${line}\n`);
  if (openDefault(level, home, warn)) begin("runtime", env, warn);
}

/** The default file's name for a process started at `at` with `pid`. */
export function logFileName(at: Date, pid: number): string {
  const stamp = at
    .toISOString()
    .replace(/[-:]/g, "")
    .replace(/\.\d+Z$/, "Z");
  return `tandem-${stamp}-${pid}.log`;
}

/** Deletes default log files in `dir` beyond the newest `keep` or older than KEEP_DAYS. */
export function pruneLogs(dir: string, keep = KEEP_FILES - 1, now = Date.now()): void {
  let names: string[];
  try {
    names = readdirSync(dir).filter((n) => LOG_FILE.test(n));
  } catch {
    return;
  }
  const files: { path: string; mtime: number }[] = [];
  for (const name of names) {
    const path = join(dir, name);
    try {
      const st = lstatSync(path);
      if (st.isFile()) files.push({ path, mtime: st.mtimeMs });
    } catch {
      // gone meanwhile
    }
  }
  files.sort((a, b) => b.mtime - a.mtime);
  const oldest = now - KEEP_DAYS * 24 * 60 * 60 * 1000;
  for (const [i, f] of files.entries()) {
    if (i < keep && f.mtime >= oldest) continue;
    try {
      unlinkSync(f.path);
    } catch {
      // another process pruned it
    }
  }
}

function homeOf(env: NodeJS.ProcessEnv): string {
  return env.TANDEM_HOME || join(homedir(), ".tandem");
}

function openGiven(level: "debug" | "trace", file: string): void {
  const path = resolve(file);
  let fd: number;
  try {
    fd = openSync(path, constants.O_WRONLY | constants.O_CREAT | constants.O_APPEND, 0o600);
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code ?? "error";
    throw Object.assign(new Error(`--log-file ${path}: cannot open it for writing (${code})`), {
      name: "ConfigError",
    });
  }
  try {
    const st = fstatSync(fd);
    if (st.isFile() && (st.mode & 0o077) !== 0) fchmodSync(fd, 0o600);
  } catch {
    // not ours to change (a file of another user, a device): written as it is
  }
  attachSink(level, fd, path);
}

/** Opens a new file in `<home>/log`; false (after a warning) when it cannot. */
function openDefault(level: "debug" | "trace", home: string, warn: (line: string) => void): boolean {
  const dir = join(home, "log");
  const path = join(dir, logFileName(new Date(), process.pid));
  let fd: number | undefined;
  try {
    mkdirSync(dir, { recursive: true, mode: 0o700 });
    if ((statSync(dir).mode & 0o077) !== 0) chmodSync(dir, 0o700);
    pruneLogs(dir);
    const flags = constants.O_WRONLY | constants.O_CREAT | constants.O_APPEND | constants.O_NOFOLLOW;
    fd = openSync(path, flags, 0o600);
    fchmodSync(fd, 0o600);
  } catch (err) {
    if (fd !== undefined) closeSync(fd);
    warn(`cannot write the debug log in ${dir} (${(err as Error).message}); logging is off`);
    return false;
  }
  attachSink(level, fd, path);
  return true;
}

function begin(surface: string, env: NodeJS.ProcessEnv, warn: (line: string) => void): void {
  for (const [name, value] of Object.entries(env)) if (CREDENTIAL_VAR.test(name)) log.secret(value);
  warn(`writing a ${log.level} log to ${log.file} (secrets masked)`);
  log.debug("log", "started", {
    surface,
    pid: process.pid,
    log_level: log.level,
    node: process.version,
    platform: `${process.platform}-${process.arch}`,
    cwd: process.cwd(),
  });
}
