import { expect } from "vitest";
import { createProtectedPaths } from "../../src/agent/policy/protected-paths.js";
import { parseRepoConfig } from "../../src/config/index.js";
import { compilePathPattern } from "../../src/util/compile-path-pattern.js";
import { longestStall } from "./longest-stall.js";

/**
 * The protected_paths attacks of the sixth to ninth passes, against the host's own glob machine: each
 * entry is accepted as a repository's config (it is a glob a user may write), tests the path the attack
 * measured on without holding the event loop (1.5 s is generous: those paths took seconds to hours),
 * gives `expected` for it, and spends steps linear in the path's length (twice the path, at most about
 * twice the steps; a backtracking matcher's grow by a power of the length).
 */
export async function expectAnsweredInLinearTime(pattern: string, path: string, expected: boolean): Promise<void> {
  expect(parseRepoConfig(`protected_paths:\n  - ${JSON.stringify(pattern)}\n`).ok).toBe(true);
  const paths = createProtectedPaths([pattern]);
  let matched: boolean | undefined;
  const stall = await longestStall(async () => {
    matched = paths.matches(path);
  });
  expect(stall).toBeLessThan(1_500);
  expect(matched).toBe(expected);
  const compiled = compilePathPattern(pattern);
  if (!compiled.ok) throw new Error(compiled.problem);
  const steps = (text: string) => compiled.pattern.run(text, Number.POSITIVE_INFINITY).steps;
  const slash = path.lastIndexOf("/");
  const name = path.slice(slash + 1, slash + 1 + 120);
  const half = `${path.slice(0, slash + 1)}${name}`;
  const whole = `${path.slice(0, slash + 1)}${name}${name}`;
  expect(steps(whole)).toBeLessThan(2.5 * steps(half));
}
