// Bundles the entry points with esbuild. CommonJS dependencies inside an ESM bundle need `require`,
// hence the createRequire banner.
import { build } from "esbuild";
import { chmod } from "node:fs/promises";

const banner = [
  "#!/usr/bin/env node",
  'import { createRequire as __tackleCreateRequire } from "node:module";',
  "const require = __tackleCreateRequire(import.meta.url);",
].join("\n");

const common = {
  bundle: true,
  platform: "node",
  target: "node20",
  format: "esm",
  sourcemap: false,
  legalComments: "none",
  banner: { js: banner },
  // The ripgrep binary lives in a platform package and must be resolved at run time.
  external: ["@vscode/ripgrep", "@vscode/ripgrep-*"],
  logLevel: "warning",
  metafile: true,
};

const entries = [
  { in: "src/main/cli.ts", out: "dist/cli.js" },
];

for (const entry of entries) {
  await build({ ...common, entryPoints: [entry.in], outfile: entry.out });
  await chmod(entry.out, 0o755);
}
