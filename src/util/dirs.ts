/** Checks a directory given on the command line before anything is created for it. */
import { statSync } from "node:fs";
import { resolve } from "node:path";

/** Why `path` (relative to the process cwd) is not a usable directory, or undefined when it is. */
export function directoryProblem(path: string): string | undefined {
  const full = resolve(path);
  try {
    return statSync(full).isDirectory() ? undefined : `${full} is not a directory`;
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    if (code === "ENOENT" || code === "ENOTDIR") return `${full} does not exist`;
    return `${full} cannot be used: ${(err as Error).message}`;
  }
}
