/**
 * A server or Action job and a local run make the same checks of the repository (its instruction
 * files, its agents and skills and the models they name, the WebFetch decision, the work left
 * uncommitted) through one module, src/worker/repo-checks.ts, so a check added there applies to both.
 * Local runs were a copy that drifted twice (local-agent-model-unchecked, local-task-text-unsanitized).
 */
import { readdirSync, readFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";

const WORKER = path.resolve("src/worker");
const CHECKS = "repo-checks.ts";
/** What only repo-checks.ts may call in the worker layer: each is one of the shared checks. */
const SHARED = /\b(?:loadRepoExtensions|disallowedAgentModels|isWebFetchOff|createWebFetcher)\s*\(|WIP: changes left uncommitted|\["AGENTS\.md"/;

const files = readdirSync(WORKER).filter((name) => name.endsWith(".ts"));
const text = (name: string) => readFileSync(path.join(WORKER, name), "utf8");

describe("the repository checks both kinds of job share", () => {
  it("are made nowhere else in the worker layer", () => {
    const elsewhere = files.filter((name) => name !== CHECKS && name !== "load-repo-extensions.ts" && SHARED.test(text(name)));
    expect(elsewhere).toEqual([]);
  });

  it.each(["run-local.ts", "run-and-publish.ts"])("%s makes them through repo-checks", (name) => {
    const imported = /import \{([^}]*)\} from "\.\/repo-checks\.js"/.exec(text(name))?.[1] ?? "";
    for (const check of ["checkRepoExtensions", "webFetcherFor", "commitLeftovers"]) expect(imported, check).toContain(check);
  });
});
