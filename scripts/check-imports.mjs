// Import hygiene over esbuild's metafile (TypeScript 7 has no JS API for madge-like tools): fails on an
// import cycle between our own modules, and on an import against the layer order
//   main/web -> triggers/jobs -> worker -> workspace/agent -> github -> config -> errors/logging -> util
// Type-only imports are erased before esbuild sees them, so they are not checked (they cannot cycle
// at run time).

/** Lower number = closer to the entry points; a module may import its own layer or a higher number. */
const LAYERS = {
  main: 0,
  web: 0,
  triggers: 1,
  jobs: 1,
  worker: 2,
  workspace: 3,
  agent: 3,
  github: 4,
  // The host's own network client (WebFetch): like github, it talks to the outside for the layers above.
  net: 4,
  config: 5,
  errors: 6,
  logging: 6,
  // The leaf: it imports none of ours, so the logger can mask what it writes with util/redact.
  util: 7,
};

/**
 * Modules any layer may import: the job's data schema travels through every layer, and the Action
 * bundle's stand-in for @vscode/ripgrep is swapped in by a build plugin, not imported by our code.
 */
const SHARED = new Set(["src/jobs/job-data.ts", "src/main/action-ripgrep.ts"]);

const layerOf = (file) => {
  const match = /^src\/([^/]+)\//.exec(file);
  return match ? match[1] : null;
};

/** Returns a list of problems (empty when the imports are clean). */
export function checkImports(metafile) {
  const graph = new Map();
  for (const [file, input] of Object.entries(metafile.inputs)) {
    if (!file.startsWith("src/")) continue;
    graph.set(
      file,
      input.imports.map((i) => i.path).filter((p) => p.startsWith("src/")),
    );
  }
  const problems = [];
  for (const [file, imports] of graph) {
    const from = layerOf(file);
    for (const target of imports) {
      const to = layerOf(target);
      if (from === null || to === null || from === to || SHARED.has(target)) continue;
      // Entry points wire everything; web is wiring too. Equal rank (triggers/jobs, workspace/agent) may not mix.
      const ok = LAYERS[from] < LAYERS[to] || (LAYERS[from] === 0 && LAYERS[to] >= 0);
      if (!ok) problems.push(`layer: ${file} imports ${target} (${from} may not import ${to})`);
    }
  }
  // Cycles, by depth-first search.
  const state = new Map();
  const stack = [];
  const visit = (file) => {
    state.set(file, "open");
    stack.push(file);
    for (const next of graph.get(file) ?? []) {
      if (state.get(next) === "open") {
        problems.push(`cycle: ${[...stack.slice(stack.indexOf(next)), next].join(" -> ")}`);
      } else if (!state.has(next)) {
        visit(next);
      }
    }
    stack.pop();
    state.set(file, "done");
  };
  for (const file of graph.keys()) if (!state.has(file)) visit(file);
  return problems;
}
