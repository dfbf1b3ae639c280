import { describe, expect, it } from "vitest";
// @ts-expect-error: a plain .mjs build script without type declarations
import { checkImports } from "../../../scripts/check-imports.mjs";

const meta = (graph: Record<string, string[]>) => ({
  inputs: Object.fromEntries(Object.entries(graph).map(([file, imports]) => [file, { imports: imports.map((path) => ({ path })) }])),
});

describe("checkImports (run by every build over esbuild's metafile)", () => {
  it("accepts imports that point down the layers", () => {
    expect(
      checkImports(
        meta({
          "src/main/cli.ts": ["src/worker/process-job.ts", "node_modules/probot/index.js"],
          "src/worker/process-job.ts": ["src/agent/loop.ts", "src/jobs/job-data.ts"],
          "src/agent/loop.ts": ["src/errors/index.ts"],
          "src/jobs/job-data.ts": [],
          "src/errors/index.ts": [],
        }),
      ),
    ).toEqual([]);
  });

  it("reports an import against the layer order", () => {
    const problems = checkImports(meta({ "src/github/client.ts": ["src/worker/process-job.ts"], "src/worker/process-job.ts": [] }));
    expect(problems).toEqual(["layer: src/github/client.ts imports src/worker/process-job.ts (github may not import worker)"]);
  });

  it("lets the logger use util (the leaf), never util import the logger", () => {
    expect(checkImports(meta({ "src/logging/logger.ts": ["src/util/redact.ts"], "src/util/redact.ts": [] }))).toEqual([]);
    expect(checkImports(meta({ "src/util/redact.ts": ["src/logging/logger.ts"], "src/logging/logger.ts": [] }))).toEqual([
      "layer: src/util/redact.ts imports src/logging/logger.ts (util may not import logging)",
    ]);
  });

  it("reports a cycle with its path", () => {
    const problems = checkImports(meta({ "src/agent/a.ts": ["src/agent/b.ts"], "src/agent/b.ts": ["src/agent/c.ts"], "src/agent/c.ts": ["src/agent/a.ts"] }));
    expect(problems).toEqual(["cycle: src/agent/a.ts -> src/agent/b.ts -> src/agent/c.ts -> src/agent/a.ts"]);
  });
});
