/**
 * The house rules for imports (ARCHITECTURE.md "Floors"), checked by `npm run check:imports`
 * (part of `npm test`). Each floor may import only the floors below it; surfaces never import
 * each other (only surfaces/shared/); nothing below the runtime reaches into it; no import
 * circles except type-only ones. A rule that must bend gets a reason here, not a disable comment.
 */
const FLOORS = [
  "protocol",
  "util",
  "wire",
  "host",
  "config",
  "store",
  "checkpoints",
  "model",
  "questions",
  "skills",
  "tools",
  "hooks",
  "agent",
  "runtime",
  "cluster",
  "mock-model",
  "surfaces",
  "main",
];

const ROOTS = "^src/cli\\.tsx?$";
const rules = FLOORS.slice(0, -1).map((floor, i) => ({
  name: `floor-${floor}`,
  severity: "error",
  comment: `src/${floor}/ may import only the floors below it (ARCHITECTURE.md "Floors")`,
  from: { path: `^src/${floor}/` },
  to: { path: [`^src/(${FLOORS.slice(i + 1).join("|")})/`, ROOTS] },
}));

rules.push(
  {
    name: "surfaces-apart",
    severity: "error",
    comment: "a surface never imports another surface; what they share lives in surfaces/shared/ or below",
    from: { path: "^src/surfaces/([^/]+)/", pathNot: "^src/surfaces/shared/" },
    to: { path: "^src/surfaces/", pathNot: ["^src/surfaces/$1/", "^src/surfaces/shared/"] },
  },
  {
    name: "shared-below-surfaces",
    severity: "error",
    comment: "surfaces/shared/ is below every surface: it imports none of them",
    from: { path: "^src/surfaces/shared/" },
    to: { path: "^src/surfaces/", pathNot: "^src/surfaces/shared/" },
  },
  {
    name: "surfaces-not-store-broker",
    severity: "error",
    comment: "surfaces reach threads and questions through the runtime API, never the store or broker",
    from: { path: "^src/surfaces/" },
    to: { path: ["^src/store/(?!types\\.ts$|errors\\.ts$)", "^src/questions/broker\\.ts$"] },
  },
  {
    name: "runtime-private",
    severity: "error",
    comment:
      "the runtime's services (store, broker, bus, ownership) stay behind its API: only the runtime reads internals.ts, and only the cluster cluster-port.ts",
    from: { pathNot: "^src/runtime/" },
    to: { path: "^src/runtime/internals\\.ts$" },
  },
  {
    name: "cluster-port-for-the-cluster",
    severity: "error",
    comment: "runtime/cluster-port.ts is the cluster's door into the runtime, no one else's",
    from: { pathNot: ["^src/runtime/", "^src/cluster/"] },
    to: { path: "^src/runtime/cluster-port\\.ts$" },
  },
  {
    name: "no-circular",
    severity: "error",
    comment: "no import circles (type-only imports are allowed to point back)",
    from: {},
    to: { circular: true, viaOnly: { dependencyTypesNot: ["type-only"] } },
  },
  {
    name: "no-unresolvable",
    severity: "error",
    from: {},
    to: { couldNotResolve: true },
  },
);

module.exports = {
  forbidden: rules,
  options: {
    doNotFollow: { path: "node_modules" },
    includeOnly: "^(src|web/src)/",
    exclude: { path: "\\.test\\.tsx?$|\\.testing\\.ts$|\\.suite\\.ts$" },
    tsPreCompilationDeps: true,
    tsConfig: { fileName: "tsconfig.json" },
    enhancedResolveOptions: { extensions: [".ts", ".tsx", ".js"] },
  },
};
