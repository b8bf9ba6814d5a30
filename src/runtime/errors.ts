/**
 * The runtime's local errors, as surfaces catch them (their wire errors are the surfaces' own):
 * - `ThreadInUseError`: another live process drives the thread (its lease); the message names it.
 * - `TurnBusyError`: a turn is already running (start) or none is (steer); steer, interrupt or
 *   start a turn instead, as the message says.
 * - `StoreError` (re-exported from the store): `fenced` (this node lost the thread's lease: nothing
 *   was written), `unavailable` (the database did not answer in time: retry), and the others of
 *   store/errors.ts. Surfaces import it from here, never from the store.
 */
export { StoreError, type StoreErrorCode } from "../store/errors.js";

/** Another live process drives the thread; the message names it. */
export class ThreadInUseError extends Error {
  override name = "ThreadInUseError";
}

/** A turn runs already (startTurn, compact of a busy thread) or none does (steer). */
export class TurnBusyError extends Error {
  override name = "TurnBusyError";
}
