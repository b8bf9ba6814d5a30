/** One finding of `tandem doctor` (README "First day: doctor and login"). */
export interface Check {
  /** Short name: home, node, bwrap, config, api-key, model, store, mcp:<server>. */
  name: string;
  status: "ok" | "warn" | "fail";
  /** What was found (never a secret's value). */
  found: string;
  /** What to do about it; absent when nothing needs doing. */
  fix?: string;
}
