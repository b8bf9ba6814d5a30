/**
 * Runs `tandem app-server` from the sources, for process-level tests before the built CLI has the
 * subcommand (see `appServerCommand` in app-server-client.ts). Same code path as `tandem app-server`.
 */
import { runAppServer } from "../src/surfaces/app-server/index.js";

runAppServer(process.argv.slice(2)).then(
  (code) => {
    process.exitCode = code;
  },
  (err) => {
    process.stderr.write(`tandem app-server: ${(err as Error)?.stack ?? err}\n`);
    process.exitCode = 1;
  },
);
