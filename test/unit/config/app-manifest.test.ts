import { readFile } from "node:fs/promises";
import { describe, expect, it } from "vitest";
import { buildAppManifest } from "../../../src/config/index.js";
import { isTackleError } from "../../../src/errors/index.js";

const where = { source: "app.yml", webhookUrl: "https://tackle.example.com/api/github/webhooks", redirectUrl: "http://127.0.0.1:4000/callback" };

describe("buildAppManifest", () => {
  it("Tackle's own app.yml: the contract's permissions and events, the webhook URL and the redirect filled in", async () => {
    const manifest = buildAppManifest(await readFile("app.yml", "utf8"), where);
    expect(manifest).toMatchObject({
      name: "Tackle",
      url: "https://github.com/tackle-bot/tackle",
      public: false,
      hook_attributes: { url: where.webhookUrl, active: true },
      redirect_url: where.redirectUrl,
      default_permissions: { contents: "write", issues: "write", pull_requests: "write", metadata: "read" },
      default_events: ["issues", "issue_comment", "pull_request_review", "pull_request_review_comment"],
    });
    expect(manifest.default_permissions).not.toHaveProperty("workflows");
  });

  it("--name replaces the file's name; other manifest fields pass through", () => {
    const yaml = "name: Tackle\nurl: https://x.example\nsetup_url: https://x.example/setup\ndefault_permissions: {issues: write}\ndefault_events: [issues]\n";
    const manifest = buildAppManifest(yaml, { ...where, name: "Tackle (staging)" });
    expect(manifest.name).toBe("Tackle (staging)");
    expect(manifest.setup_url).toBe("https://x.example/setup");
  });

  it("reports every problem at once, naming the file", () => {
    let caught: unknown;
    try {
      buildAppManifest("name: ''\nurl: not a url\ndefault_permissions: {issues: owner}\n", { ...where, source: "/tmp/my.yml" });
    } catch (error) {
      caught = error;
    }
    expect(isTackleError(caught, "config_invalid")).toBe(true);
    const message = (caught as Error).message;
    expect(message).toMatch(/^\/tmp\/my\.yml is not a usable App manifest:/);
    for (const key of ["`name`", "`url`", "`default_permissions.issues`", "`default_events`"]) expect(message).toContain(key);
    expect(() => buildAppManifest("name: [", where)).toThrow(/app\.yml is not valid YAML/);
    expect(() => buildAppManifest("name: x\n", { ...where, name: "a".repeat(35) })).toThrow(/`name`/);
  });
});
