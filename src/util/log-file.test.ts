/**
 * Where the debug log goes (log-file.ts): levels from TANDEM_LOG / --log-file / the setting, the
 * default file's place, name and modes, pruning, and bad input that warns or fails clearly.
 */
import {
  chmodSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  statSync,
  utimesSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { log, stopLog } from "./log.js";
import {
  applyLogSetting,
  KEEP_DAYS,
  KEEP_FILES,
  logFileName,
  parseLevel,
  pruneLogs,
  startLog,
} from "./log-file.js";

const temp = () => mkdtempSync(join(tmpdir(), "tandem-logfile-"));
const mode = (p: string) => statSync(p).mode & 0o777;

afterEach(() => stopLog());

describe("startLog", () => {
  it("TANDEM_LOG=debug opens tandem-<stamp>-<pid>.log in $TANDEM_HOME/log, dir 0700, file 0600", () => {
    const home = temp();
    const warnings: string[] = [];
    startLog({
      surface: "t",
      env: { TANDEM_HOME: home, TANDEM_LOG: "DEBUG" },
      warn: (l) => warnings.push(l),
    });
    const dir = join(home, "log");
    expect(log.file).toBe(join(dir, readdirSync(dir)[0]));
    expect(readdirSync(dir)[0]).toMatch(new RegExp(`^tandem-\\d{8}T\\d{6}Z-${process.pid}\\.log$`));
    expect(mode(dir)).toBe(0o700);
    expect(mode(log.file!)).toBe(0o600);
    expect(warnings).toEqual([`writing a debug log to ${log.file} (secrets masked)`]);
    expect(JSON.parse(readFileSync(log.file!, "utf8"))).toMatchObject({ msg: "started", surface: "t" });
  });

  it("makes an existing log directory private again", () => {
    const home = temp();
    mkdirSync(join(home, "log"), { mode: 0o755 });
    chmodSync(join(home, "log"), 0o755);
    startLog({ surface: "t", env: { TANDEM_HOME: home, TANDEM_LOG: "trace" }, warn: () => {} });
    expect(mode(join(home, "log"))).toBe(0o700);
  });

  it("a TANDEM_LOG that is not a level warns and leaves logging off", () => {
    const home = temp();
    const warnings: string[] = [];
    startLog({
      surface: "t",
      env: { TANDEM_HOME: home, TANDEM_LOG: "verbose" },
      warn: (l) => warnings.push(l),
    });
    expect(warnings).toEqual(['ignoring TANDEM_LOG="verbose": not a log level (use debug, trace or off)']);
    expect(log.level).toBe("off");
    expect(existsSync(join(home, "log"))).toBe(false);
  });

  it("--log-file alone logs at debug to that file (0600, also when it existed wider)", () => {
    const file = join(temp(), "mine.log");
    writeFileSync(file, "");
    chmodSync(file, 0o644);
    startLog({ surface: "t", file, env: {}, warn: () => {} });
    expect(log.level).toBe("debug");
    expect(log.file).toBe(file);
    expect(mode(file)).toBe(0o600);
  });

  it("--log-file that cannot be opened fails with a ConfigError naming it", () => {
    const file = join(temp(), "no", "such", "dir.log");
    expect(() => startLog({ surface: "t", file, env: {}, warn: () => {} })).toThrow(
      expect.objectContaining({
        name: "ConfigError",
        message: expect.stringContaining(`--log-file ${file}`),
      }),
    );
    expect(log.level).toBe("off");
  });

  it("a home where the log cannot go is a warning, not a failure", () => {
    const home = temp();
    writeFileSync(join(home, "log"), "a file where the directory would be");
    const warnings: string[] = [];
    startLog({
      surface: "t",
      env: { TANDEM_HOME: home, TANDEM_LOG: "debug" },
      warn: (l) => warnings.push(l),
    });
    expect(log.level).toBe("off");
    expect(warnings[0]).toMatch(/^cannot write the debug log in .*\/log \(.*\); logging is off$/);
  });

  it("masks credential-looking environment values from the start", () => {
    const file = join(temp(), "env.log");
    startLog({
      surface: "t",
      file,
      env: { TANDEM_LOG: "debug", MY_API_KEY: "k-1234567", OTHER: "plain-1234" },
      warn: () => {},
    });
    log.debug("t", "values", { a: "k-1234567", b: "plain-1234" });
    const last = JSON.parse(readFileSync(file, "utf8").trim().split("\n").at(-1)!);
    expect(last).toMatchObject({ a: "[redacted]", b: "plain-1234" });
  });
});

describe("the log_level setting", () => {
  it("turns the log on when neither TANDEM_LOG nor --log-file decided", () => {
    const home = temp();
    startLog({ surface: "t", env: { TANDEM_HOME: home }, warn: () => {} });
    expect(log.level).toBe("off");
    applyLogSetting("trace", home, {});
    expect(log.level).toBe("trace");
    expect(log.file?.startsWith(join(home, "log", "tandem-"))).toBe(true);
  });

  it("is ignored after an explicit TANDEM_LOG=off", () => {
    const home = temp();
    startLog({ surface: "t", env: { TANDEM_HOME: home, TANDEM_LOG: "off" }, warn: () => {} });
    applyLogSetting("debug", home, {});
    expect(log.level).toBe("off");
    expect(existsSync(join(home, "log"))).toBe(false);
  });
});

describe("names and pruning", () => {
  it("names files by UTC start time and pid", () => {
    expect(logFileName(new Date("2025-03-04T05:06:07.890Z"), 42)).toBe("tandem-20250304T050607Z-42.log");
    expect(parseLevel(" Trace ")).toBe("trace");
    expect(parseLevel("")).toBeUndefined();
    expect(parseLevel("info")).toBe("invalid");
  });

  it("keeps the newest KEEP_FILES - 1 log files younger than KEEP_DAYS, and other files", () => {
    const dir = temp();
    const now = Date.now();
    const names: string[] = [];
    for (let i = 0; i < KEEP_FILES + 3; i++) {
      const name = `tandem-2025010${i % 10}T0000${String(i).padStart(2, "0")}Z-${i}.log`;
      writeFileSync(join(dir, name), "");
      const t = (now - i * 60_000) / 1000;
      utimesSync(join(dir, name), t, t);
      names.push(name);
    }
    const old = "tandem-old.log";
    writeFileSync(join(dir, old), "");
    const t = (now - (KEEP_DAYS + 1) * 86_400_000) / 1000;
    utimesSync(join(dir, old), t, t);
    writeFileSync(join(dir, "notes.txt"), "");
    pruneLogs(dir, KEEP_FILES - 1, now);
    const left = readdirSync(dir).sort();
    expect(left).toEqual([...names.slice(0, KEEP_FILES - 1), "notes.txt"].sort());
  });

  it("deletes a file older than KEEP_DAYS even when there are few", () => {
    const dir = temp();
    const now = Date.now();
    writeFileSync(join(dir, "tandem-new.log"), "");
    writeFileSync(join(dir, "tandem-stale.log"), "");
    const t = (now - (KEEP_DAYS + 1) * 86_400_000) / 1000;
    utimesSync(join(dir, "tandem-stale.log"), t, t);
    pruneLogs(dir, KEEP_FILES - 1, now);
    expect(readdirSync(dir)).toEqual(["tandem-new.log"]);
  });
});
