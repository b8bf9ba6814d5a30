/** Small statistics helpers for the benchmarks (figures are printed, never asserted). */
export function quantile(xs: number[], q: number): number {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.floor(q * s.length))];
}
export const median = (xs: number[]) => quantile(xs, 0.5);
export const fmt = (ms: number) =>
  Math.abs(ms) < 1 ? `${(ms * 1000).toFixed(1)} µs` : `${ms.toFixed(2)} ms`;
export function line(name: string, value: string, target?: string): void {
  process.stdout.write(`${name.padEnd(58)} ${value.padEnd(28)}${target ? ` (target ${target})` : ""}\n`);
}
