import { defineConfig } from "vitest/config";

export default defineConfig({
  test: {
    include: ["src/**/*.test.ts", "test/**/*.test.ts"],
    testTimeout: 30_000,
    hookTimeout: 30_000,
    pool: "forks",
    // Builds dist/ once when a source is newer (tests that run ./bin/tandem use it), or fails
    // the run clearly when the build fails: never silently tests an old bundle.
    globalSetup: ["./test/helpers/global-setup.ts"],
    // The skip reporter prints which system tools were missing (and how to install them) and,
    // under TANDEM_REQUIRE_TOOLS=1 (.ci/run), fails the run on any skipped test.
    reporters: ["default", "./test/helpers/skip-reporter.ts"],
  },
});
