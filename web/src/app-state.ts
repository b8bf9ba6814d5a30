/**
 * The page's state object and its change signal, on their own so that modules the actions in
 * state.ts use (agents.ts) can read and change it without importing state.ts back. Components
 * read it through `useApp()` (re-rendered on every `changed()`); state.ts re-exports all of it.
 */
import { useSyncExternalStore } from "react";
import type { ThreadSummary } from "../../src/protocol/http.js";
import type { QuestionOutcome, QuestionRequest, Responder } from "../../src/protocol/questions.js";
import { Transcript } from "./lib/transcript.js";

export type Conn = "connecting" | "live" | "offline";
/** How the open request settled without this page: shown instead of the form's buttons. */
export interface Settled {
  type: string;
  outcome?: QuestionOutcome;
  by?: Responder;
}

export const app = {
  clientId: `web-${Math.random().toString(36).slice(2, 10)}`,
  authed: false,
  authError: "",
  conn: "connecting" as Conn,
  connText: "connecting…",
  threads: new Map<string, ThreadSummary>(),
  current: sessionStorage.getItem("tandem.thread") as string | null,
  questions: new Map<string, QuestionRequest>(),
  settled: new Set<string>(),
  skew: 0,
  transcript: new Transcript(),
  loadError: "",
  /** The request shown in the sheet, and how it settled elsewhere (if it did). */
  sheet: null as null | { req: QuestionRequest; elsewhere: Settled | null },
  later: new Set<string>(),
  drawer: null as null | "threads" | "inbox",
  newThread: false,
  notify: localStorage.getItem("tandem.notify") === "1",
  /** Why notifications are off or failed, shown beside the toggle (notify.ts). */
  notifyError: "",
  /** Where threads created without a directory run (GET /thread's default_cwd). */
  defaultCwd: "",
  /** A deep link's question, opened once it is among the pending ones. */
  wanted: null as string | null,
  /** The selected thread's files-changed view, and its model/effort form, are open. */
  files: false,
  settings: false,
  /** The outcome of the last undo, redo, fork or rewind (branches.ts), shown above the composer. */
  notice: null as null | { text: string; tone: "ok" | "info" | "error"; open?: string },
  /** Text the composer takes up once (a rewound message, to edit and send again). */
  draft: null as string | null,
};

let version = 0;
const listeners = new Set<() => void>();
export function changed(): void {
  version++;
  for (const l of listeners) l();
}
export function useApp(): number {
  return useSyncExternalStore(
    (l) => {
      listeners.add(l);
      return () => listeners.delete(l);
    },
    () => version,
  );
}
