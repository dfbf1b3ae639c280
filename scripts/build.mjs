// Bundles the entry points with esbuild. CommonJS dependencies inside an ESM bundle need `require`,
// hence the createRequire banner.
import { build } from "esbuild";
import { chmod, mkdir, readFile, rm } from "node:fs/promises";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { parseArgs } from "node:util";
import { checkImports } from "./check-imports.mjs";

// Paths in the output are relative to the repository root, wherever the build runs from, so the
// committed dist/action.js is byte-for-byte reproducible (no sourcemaps, no timestamps).
const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");
// `--outdir DIR`: the same build into another directory (the test comparing with the committed bundle).
const { values: args } = parseArgs({ options: { outdir: { type: "string" } }, strict: true });
const outdir = path.resolve(args.outdir ?? path.join(root, "dist"));
// `tackle --version` is package.json's version, written into the bundle (src/main/cli.ts, TACKLE_VERSION).
const { version } = JSON.parse(await readFile(path.join(root, "package.json"), "utf8"));

const banner = [
  "#!/usr/bin/env node",
  'import { createRequire as __tackleCreateRequire } from "node:module";',
  "const require = __tackleCreateRequire(import.meta.url);",
].join("\n");

const common = {
  bundle: true,
  platform: "node",
  target: "node22", // package.json engines; CI runs the built CLI under Node 22 and 24
  format: "esm",
  sourcemap: false,
  legalComments: "none",
  banner: { js: banner },
  define: { TACKLE_VERSION: JSON.stringify(version) },
  // The ripgrep binary lives in a platform package and must be resolved at run time.
  external: ["@vscode/ripgrep", "@vscode/ripgrep-*"],
  logLevel: "warning",
  metafile: true,
  absWorkingDir: root,
};

// The Action runs from its own checkout without node_modules: ripgrep comes from PATH there.
const ripgrepFromPath = {
  name: "ripgrep-from-path",
  setup(pluginBuild) {
    pluginBuild.onResolve({ filter: /^@vscode\/ripgrep$/ }, () => ({ path: path.join(root, "src/main/action-ripgrep.ts") }));
  },
};

// The CLI is split at its per-command dynamic imports: dist/cli.js holds the argument parsing and the
// help, and each command's code sits in dist/chunks/, loaded only when that command runs, so
// `tackle --help` starts in about the time node does. The Action stays one committed file.
const entries = [
  { in: "src/main/cli.ts", out: "cli.js", split: true },
  // Committed: the Action runs it straight from the repository. src/main/action.ts only exports run()
  // (so `@github/local-action` and tests can import it); the bundle's entry is this line, which calls it.
  { in: "src/main/action.ts", call: "run", out: "action.js", plugins: [ripgrepFromPath] },
];

await mkdir(outdir, { recursive: true });
// Chunk names carry a content hash: drop the last build's, so `npm pack` ships only the current ones.
await rm(path.join(outdir, "chunks"), { recursive: true, force: true });
const problems = new Set();
for (const entry of entries) {
  const outfile = path.join(outdir, entry.out);
  const output = entry.split ? { splitting: true, outdir, entryNames: path.basename(entry.out, ".js"), chunkNames: "chunks/[name]-[hash]" } : { outfile };
  const input = entry.call
    ? { stdin: { contents: `import { ${entry.call} } from "./${entry.in}";\nawait ${entry.call}();\n`, resolveDir: root, sourcefile: entry.out, loader: "js" } }
    : { entryPoints: [entry.in] };
  const result = await build({ ...common, ...input, ...output, plugins: entry.plugins ?? [] });
  await chmod(outfile, 0o755);
  for (const problem of checkImports(result.metafile)) problems.add(problem);
}
if (problems.size > 0) {
  console.error(`build: ${problems.size} import problem(s):\n${[...problems].map((p) => `  ${p}`).join("\n")}`);
  process.exit(1);
}
