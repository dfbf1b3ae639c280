// `npm run bench`: runs every bench/*.bench.ts in name order (or those named on the command line) and
// prints their tables. Each figure that has a goal is a ratio against a baseline measured in the same run.
import { readdir } from "node:fs/promises";
import path from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";

const dir = path.dirname(fileURLToPath(import.meta.url));
const only = process.argv.slice(2);
const files = (await readdir(dir)).filter((f) => f.endsWith(".bench.ts")).sort();
for (const file of files) {
  if (only.length > 0 && !only.some((name) => file.includes(name))) continue;
  const module = (await import(pathToFileURL(path.join(dir, file)).href)) as { run: () => Promise<void> };
  console.log(`\n## ${file.replace(/\.bench\.ts$/, "")}\n`);
  await module.run();
}
