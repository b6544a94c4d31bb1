// Module boundaries of src/ (issue #12), checked by `npm run boundaries` inside `npm test`.
// Layers, lowest first: a module may import its own layer or a lower one, never a higher one.
const LAYERS = ["spec", "core", "bus", "runtime", "adapters", "workers", "commands", "ui", "mcp", "cli"];

const upward = LAYERS.slice(0, -1).map((layer, i) => ({
  name: `layer-${layer}`,
  comment: `src/${layer} is layer ${i}: it may not import the layers above it (${LAYERS.slice(i + 1).join(", ")}).`,
  severity: "error",
  from: { path: `^src/${layer}/` },
  to: { path: `^src/(${LAYERS.slice(i + 1).join("|")})/` },
}));

module.exports = {
  forbidden: [
    ...upward,
    {
      name: "pure-core-and-spec",
      comment: "src/spec and src/core are pure: no files, processes, network or paths (node:crypto hashes). I/O is src/bus+.",
      severity: "error",
      from: { path: "^src/(spec|core)/" },
      to: { dependencyTypes: ["core"], path: "^(node:)?(fs|fs/promises|child_process|os|net|http|path)$" },
    },
    {
      name: "cli-is-an-entry-point",
      comment: "Only src/cli (and bin/) may import src/cli: the CLI is the top of the tree, nothing builds on it.",
      severity: "error",
      from: { pathNot: "^(src/cli/|bin/)" },
      to: { path: "^src/cli/" },
    },
    {
      name: "no-tests-or-bench-in-src",
      comment: "The library never depends on its tests or benchmarks.",
      severity: "error",
      from: { path: "^src/" },
      to: { path: "^(test|bench)/" },
    },
    {
      name: "no-circular",
      comment: "Import cycles hide layering mistakes and make load order matter.",
      severity: "error",
      from: {},
      to: { circular: true },
    },
    {
      name: "not-to-unresolvable",
      comment: "An import that does not resolve is a broken build waiting for its first run.",
      severity: "error",
      from: {},
      to: { couldNotResolve: true },
    },
    {
      name: "not-to-dev-dep",
      comment: "src/ ships: it may use only `dependencies`, not `devDependencies`.",
      severity: "error",
      from: { path: "^src/" },
      to: { dependencyTypes: ["npm-dev"], dependencyTypesNot: ["type-only"] },
    },
  ],
  options: {
    doNotFollow: { path: "node_modules" },
    tsPreCompilationDeps: true,
    tsConfig: { fileName: "tsconfig.json" },
    enhancedResolveOptions: { exportsFields: ["exports"], conditionNames: ["import", "require", "node", "default"] },
    reporterOptions: {
      // `npm run graph`: one node per layer folder.
      archi: { collapsePattern: "^src/[^/]+" },
    },
  },
};
// For scripts/graph.mjs; not enumerable, since dependency-cruiser refuses unknown config keys.
Object.defineProperty(module.exports, "LAYERS", { value: LAYERS });
