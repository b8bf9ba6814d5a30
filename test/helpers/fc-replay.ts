/**
 * Replayable property tests (fast-check). Call `replayable({ numRuns })` inside the test and pass
 * the result to `fc.assert`. The run's seed is chosen here (or taken from FC_SEED) and, if the
 * test fails for any reason — a counterexample, or a timeout that fast-check never reports — the
 * replay command is written to stderr, which vitest prints with the failure:
 *
 *   FC_SEED=<seed> npx vitest run <file> -t "<test name>"          # the same run again
 *   FC_SEED=<seed> FC_PATH=<path> npx vitest run <file> -t "<name>"  # just the shrunk case
 *
 * On a counterexample fast-check's own error also shows `{ seed, path, endOnFailure }` and, with
 * `verbose`, the failures met while shrinking.
 */
import { onTestFailed } from "vitest";

export interface ReplayParams {
  seed: number;
  path?: string;
  verbose: 1;
  numRuns?: number;
  endOnFailure?: boolean;
}

export function replayable(opts: { numRuns?: number } = {}): ReplayParams {
  const fromEnv = Number(process.env.FC_SEED);
  const seed =
    Number.isFinite(fromEnv) && process.env.FC_SEED !== "" ? fromEnv : (Math.random() * 2 ** 31) | 0;
  const path = process.env.FC_PATH || undefined;
  onTestFailed(({ task }) => {
    const file = task.file?.name ?? "<file>";
    process.stderr.write(
      `property test failed; replay with: FC_SEED=${seed} npx vitest run ${file} -t ${JSON.stringify(task.name)}` +
        " (add FC_PATH=<path from the counterexample> for just the shrunk case)\n",
    );
  });
  return { ...opts, seed, verbose: 1, ...(path ? { path, endOnFailure: true } : {}) };
}
