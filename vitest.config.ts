import { defineConfig } from "vitest/config";

export default defineConfig({
  test: {
    include: ["test/**/*.test.ts", "src/**/*.test.ts"],
    testTimeout: 60_000,
    hookTimeout: 60_000,
    pool: "forks",
    // Integration tests start servers, git and bubblewrap; two cores, so keep parallelism modest.
    maxWorkers: 2,
    // Off in `npm test` (it would slow the long integration runs); `npm run coverage` turns it on.
    coverage: {
      provider: "v8",
      include: ["src/**/*.ts"],
      exclude: ["src/**/*.test.ts"],
      reporter: ["text-summary", "html"],
      reportsDirectory: "coverage",
      reportOnFailure: true,
      // A little below what test/unit alone reached when they were set (lines 65.9%, statements 63.6%,
      // branches 60.9%, functions 59.3%); the whole suite covers more. Raise them as tests are added.
      thresholds: { lines: 63, statements: 61, branches: 58, functions: 56 },
    },
  },
});
