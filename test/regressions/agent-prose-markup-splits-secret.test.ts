// Partial (red team of #20, twentieth pass, redaction of the agent's prose on GitHub): ReportToIssue (and the
// PR body, the summary) masks the agent's words by value and by token shape, then keeps them as Markdown
// (`agentProse`). Markdown that renders as nothing splits a secret for the redactor but not for the reader:
// a backslash before its punctuation (`s3cr3t\$Value\!42` renders `s3cr3t$Value!42`) or emphasis inside it
// (`ghp_abc**def…**…`, `s3cr3t$**Value**!42` render with the token's characters in a row). Neither the
// mask before `agentProse` nor the redacting client's last pass (`maskSurface`) sees the secret, and GitHub
// shows it (copied, it is the exact value). The security model admits a secret "split across two comments";
// this is one comment, and the split is undone by the renderer.
// Fixed: the same rendered-text check in maskSurface (surface-markdown.ts › renderedViews).
// What should hold: no configured secret, and no known token, is in the text GitHub renders of a Tackle
// comment.
import { execFileSync } from "node:child_process";
import { describe, expect, it } from "vitest";
import { redactingGitHubClient, type GitHubClient } from "../../src/github/index.js";
import { createRedactor } from "../../src/util/redact.js";
import { githubIssuePort } from "../../src/worker/github-ports.js";

const SECRET = "s3cr3t$Value!42";
const TOKEN = `ghp_${"A1b2C3d4E5".repeat(4)}`;

function renderedText(markdown: string): string {
  const html = execFileSync(
    "cmark-gfm",
    ["--unsafe", "-e", "table", "-e", "footnotes", "-e", "autolink", "-e", "tagfilter", "-e", "tasklist", "-e", "strikethrough"],
    { input: markdown, encoding: "utf8" },
  );
  return html.replace(/<[^>]*>/g, "").replace(/&amp;/g, "&");
}

async function reported(prose: string): Promise<string> {
  const posted: string[] = [];
  const raw = {
    createComment: async (_repo: unknown, _number: number, body: string) => {
      posted.push(body);
      return { id: 1, url: "https://github.com/o/r/issues/7#issuecomment-1" };
    },
  } as unknown as GitHubClient;
  const redact = createRedactor([SECRET]);
  const port = githubIssuePort({
    github: redactingGitHubClient(raw, redact),
    redact,
    repo: { owner: "o", name: "r" },
    number: 7,
    isTrusted: async () => false,
  });
  await port.report({ prose });
  return renderedText(posted.join("\n"));
}

describe("the agent's prose: Markdown that renders as nothing inside a secret", () => {
  it("a backslash before the secret's punctuation does not show it", async () => {
    expect(await reported("The password is s3cr3t\\$Value\\!42 as configured.")).not.toContain(SECRET);
  });

  it("emphasis inside the secret does not show it", async () => {
    expect(await reported("The password is s3cr3t$**Value**!42 as configured.")).not.toContain(SECRET);
  });

  it("emphasis inside a GitHub token does not show it", async () => {
    expect(await reported(`Token: ghp_A1b2**${TOKEN.slice(8)}**.`)).not.toContain(TOKEN);
  });

  it("the control: the secret as written is masked", async () => {
    expect(await reported(`The password is ${SECRET} as configured.`)).not.toContain(SECRET);
  });
});
