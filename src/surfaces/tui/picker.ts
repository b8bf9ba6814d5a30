/**
 * Pickers (the `/resume`, `/model` and `/approvals` lists) as plain data, plus the small pure
 * helpers the `/` list and the pickers share. No React here (pickers.tsx draws them).
 *
 * Contract: the controller opens a picker with `MenuHost.open(request)`; the composer shows the
 * open picker instead of its input and sends it the keys. Choosing an item calls
 * `request.onPick(value)` after the picker closes (so `onPick` may open the next picker); Esc calls
 * `onCancel` and closes it. At most one picker is open; opening another replaces it.
 */

export interface PickerItem {
  label: string;
  /** Dim text after the label (age, status, description). */
  detail?: string;
  value: string;
  /** The setting in force: marked, and selected when the picker opens. */
  current?: boolean;
  /** Selected when the picker opens (when no item is current). */
  initial?: boolean;
}

export interface PickerRequest {
  title: string;
  items: PickerItem[];
  onPick(value: string): void;
  onCancel?(): void;
}

/** The open picker, observable (fit for `useSyncExternalStore`). */
export class MenuHost {
  private request: PickerRequest | null = null;
  private listeners = new Set<() => void>();

  current = (): PickerRequest | null => this.request;

  subscribe = (fn: () => void): (() => void) => {
    this.listeners.add(fn);
    return () => {
      this.listeners.delete(fn);
    };
  };

  open(request: PickerRequest): void {
    this.request = request;
    this.emit();
  }

  /** Closes the picker and runs its `onPick` (or `onCancel` when `value` is undefined). */
  settle(value: string | undefined): void {
    const r = this.request;
    if (!r) return;
    this.request = null;
    this.emit();
    if (value === undefined) r.onCancel?.();
    else r.onPick(value);
  }

  private emit(): void {
    for (const l of this.listeners) l();
  }
}

/** The first row to show so that `selected` is visible in a window of `size` rows. */
export function windowStart(selected: number, count: number, size: number): number {
  if (count <= size) return 0;
  return Math.min(Math.max(0, selected - Math.floor(size / 2)), count - size);
}

/** Moves a selection by `delta`, wrapping around. */
export function moveSelection(selected: number, delta: number, count: number): number {
  if (count === 0) return 0;
  return (((selected + delta) % count) + count) % count;
}

/** "just now", "3m ago", "2h ago", "5d ago" — how long before `now` something happened. */
export function ago(then: number, now = Date.now()): string {
  const s = Math.max(0, Math.floor((now - then) / 1000));
  if (s < 60) return "just now";
  if (s < 3600) return `${Math.floor(s / 60)}m ago`;
  if (s < 86_400) return `${Math.floor(s / 3600)}h ago`;
  return `${Math.floor(s / 86_400)}d ago`;
}
