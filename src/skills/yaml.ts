/**
 * YAML parsing for skill and prompt-file frontmatter, loaded on first use: the `yaml` package is
 * ~280 KB of code that every `tandem exec` compiled and kept (~3 MiB of its peak RSS, issue 30
 * item 2) though most workspaces have no SKILL.md or prompt file with frontmatter.
 *
 * Discovery is synchronous, so the package is loaded with `require`: from the single-file
 * bundle the build writes beside the CLI's chunks (`dist/vendor/yaml.cjs`, scripts/build.mjs),
 * or from node_modules when running from the sources (tests, `npm run dev`).
 *
 * Contract: `parseYaml` is `yaml`'s `parse`; it throws what `parse` throws.
 */
import { createRequire } from "node:module";
import type { parse } from "yaml";

/** Defined (true) by scripts/build.mjs in the bundle; undefined when running from the sources. */
declare const __TANDEM_BUNDLED__: boolean | undefined;

let loaded: typeof parse | undefined;

export function parseYaml(text: string, options?: { maxAliasCount?: number }): unknown {
  if (!loaded) {
    const bundled = typeof __TANDEM_BUNDLED__ !== "undefined" && __TANDEM_BUNDLED__;
    const yaml = createRequire(import.meta.url)(
      bundled ? "./vendor/yaml.cjs" : "yaml",
    ) as typeof import("yaml");
    loaded = yaml.parse;
  }
  return loaded(text, options);
}
