/** Abort helpers. Listeners are registered `{once:true}` and removed in `finally` (STYLE 4). */

/**
 * What an interrupted tool call had done before it stopped (a command's output so far, with a
 * note that the user interrupted it): recorded as the call's output instead of "aborted", so
 * the model and every surface keep it (README "Stopping Tandem").
 */
export interface AbortPartial {
  /** The tool's output payload (tools/types.ts ToolResult), opaque here. */
  output: unknown;
  display?: Record<string, unknown>;
}

export class AbortError extends Error {
  override name = "AbortError";
  constructor(
    message = "aborted",
    /** Set by a tool that has something to keep from the interrupted call. */
    readonly partial?: AbortPartial,
  ) {
    super(message);
  }
  static isInstance(e: unknown): e is AbortError {
    return e instanceof Error && e.name === "AbortError";
  }
}

/**
 * An abort reason asking that processes stop at once, with no grace period: the thread moved to
 * another process, which may start the same work again within moments.
 */
export class AbortNow {
  constructor(readonly message: string) {}
  toString(): string {
    return this.message;
  }
}

/** True when `signal` was aborted with an AbortNow reason. */
export function abortsNow(signal: AbortSignal): boolean {
  return signal.aborted && signal.reason instanceof AbortNow;
}

/** Resolves after `ms`, or rejects with AbortError when `signal` aborts first. */
export function sleep(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal?.aborted) return reject(new AbortError());
    const onAbort = () => {
      clearTimeout(t);
      reject(new AbortError());
    };
    const t = setTimeout(() => {
      signal?.removeEventListener("abort", onAbort);
      resolve();
    }, ms);
    signal?.addEventListener("abort", onAbort, { once: true });
  });
}

/** Runs `fn` with a promise that rejects when `signal` aborts; cleans the listener up. */
export function raceAbort<T>(promise: Promise<T>, signal: AbortSignal): Promise<T> {
  if (signal.aborted) return Promise.reject(new AbortError());
  return new Promise<T>((resolve, reject) => {
    const onAbort = () => reject(new AbortError());
    signal.addEventListener("abort", onAbort, { once: true });
    promise.then(
      (v) => {
        signal.removeEventListener("abort", onAbort);
        resolve(v);
      },
      (e) => {
        signal.removeEventListener("abort", onAbort);
        reject(e);
      },
    );
  });
}
