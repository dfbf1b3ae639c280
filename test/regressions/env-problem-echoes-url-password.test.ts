// A variable that fails its check is named in the problem message with the value it held ("got ..."),
// except for a fixed list of secret names. A URL with a password in it (ANTHROPIC_BASE_URL,
// WEBHOOK_PROXY_URL, GITHUB_API_URL through a proxy that wants one) was not on that list, so a typo in
// its scheme printed the password to the terminal, the Action's log or a service's journal.
//
// Fix: the loader asks the one list of secrets (isSecretName) and shows any other value with its URL
// password masked.
import { describe, expect, it } from "vitest";
import { loadEnv } from "../../src/config/index.js";

function problem(vars: Record<string, string>): string {
  try {
    loadEnv(vars, { mode: "local", homeDir: "/home/op" });
  } catch (error) {
    return String((error as Error).message);
  }
  throw new Error("expected a config error");
}

describe("a URL variable that fails its check", () => {
  it("is shown with its password masked", () => {
    for (const name of ["ANTHROPIC_BASE_URL", "WEBHOOK_PROXY_URL", "ANTHROPIC_BEDROCK_BASE_URL"]) {
      const message = problem({ [name]: "htps://proxy-user:proxy-pass-4f9a@proxy.example/v1" });
      expect(message).toContain(name);
      expect(message).not.toContain("proxy-pass-4f9a");
    }
  });
});
