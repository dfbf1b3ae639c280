// What the workflow's token may do, learned from GitHub's own answers: a 401 means a bad token, a 403
// a permission the workflow's `permissions:` block does not grant. Both are the workflow's
// misconfiguration, which the step must report as a failure saying what to fix, not as a refusal.
import type { GitHubClient } from "../github/index.js";
import { createRedactor, cutMasked } from "../util/redact.js";

/** The workflow's `permissions:` block Tackle needs, as the README shows it. */
export const REQUIRED_PERMISSIONS = ["contents: write", "issues: write", "pull-requests: write"] as const;

export interface AccessProblem {
  status: 401 | 403;
  /** What Tackle was doing, as a verb phrase: "comment on the issue". */
  doing: string;
  /** The permissions that would have allowed it, in workflow syntax; any one set is enough. */
  permissions: string[][];
  /** GitHub's own message. */
  detail: string;
}

type Method = Exclude<keyof GitHubClient, "gitToken">;

/** For each client method: what it does, and the permission GitHub checks when its answer does not say. */
const NEEDS: Record<Method, { doing: string; permission: string }> = {
  getRepo: { doing: "read the repository", permission: "metadata: read" },
  getPermission: { doing: "check the commenter's permission", permission: "metadata: read" },
  addReaction: { doing: "react to the trigger", permission: "issues: write" },
  createComment: { doing: "comment on the issue", permission: "issues: write" },
  updateComment: { doing: "edit its tracking comment", permission: "issues: write" },
  deleteComment: { doing: "delete its comment", permission: "issues: write" },
  getIssue: { doing: "read the issue", permission: "issues: read" },
  listComments: { doing: "read the issue's comments", permission: "issues: read" },
  listReviewComments: { doing: "read the review comments", permission: "pull-requests: read" },
  getPull: { doing: "read the pull request", permission: "pull-requests: read" },
  findOpenPull: { doing: "look for its pull request", permission: "pull-requests: read" },
  createPull: { doing: "open the pull request", permission: "pull-requests: write" },
  updatePull: { doing: "update the pull request", permission: "pull-requests: write" },
  getFile: { doing: "read the repository's files", permission: "contents: read" },
};

interface HttpFailure {
  status: number;
  headers: Record<string, string | number | undefined>;
  message: string;
}

/** The HTTP failure behind an error: our TackleErrors keep Octokit's RequestError as their cause. */
function httpFailureOf(error: unknown): HttpFailure | undefined {
  for (let e: unknown = error, depth = 0; typeof e === "object" && e !== null && depth < 4; e = (e as { cause?: unknown }).cause, depth++) {
    const { status, response, message } = e as { status?: unknown; response?: { headers?: HttpFailure["headers"] }; message?: unknown };
    if (typeof status === "number") return { status, headers: response?.headers ?? {}, message: typeof message === "string" ? message : "" };
  }
  return undefined;
}

/**
 * GitHub's `x-accepted-github-permissions` header: sets separated by `;`, permissions within a set by
 * `,`, each `name=level` (`issues=write; pull_requests=write`). Names in workflow syntax.
 */
export function parseAcceptedPermissions(header: string | number | undefined): string[][] {
  if (typeof header !== "string") return [];
  return header
    .split(";")
    .map((set) =>
      set
        .split(",")
        .map((entry) => entry.trim().split("="))
        .filter((pair): pair is [string, string] => pair.length === 2 && pair[0] !== "" && pair[1] !== "")
        .map(([name, level]) => `${name.replaceAll("_", "-")}: ${level}`),
    )
    .filter((set) => set.length > 0);
}

/** A 401 or a permission 403 from an API call; undefined for anything else (a rate limit's 403 included). */
export function accessProblemOf(method: Method, error: unknown): AccessProblem | undefined {
  const failure = httpFailureOf(error);
  if (failure === undefined) return undefined;
  const { doing, permission } = NEEDS[method];
  const detail = failure.message.replace(/ - https:\/\/docs\.github\.com\S*$/, "");
  if (failure.status === 401) return { status: 401, doing, permissions: [], detail };
  if (failure.status !== 403) return undefined;
  const rateLimited = failure.headers["retry-after"] !== undefined || String(failure.headers["x-ratelimit-remaining"]) === "0";
  if (rateLimited) return undefined;
  const accepted = parseAcceptedPermissions(failure.headers["x-accepted-github-permissions"]);
  return { status: 403, doing, permissions: accepted.length > 0 ? accepted : [[permission]], detail };
}

export interface WatchedGitHub {
  /** The same client; every call's 401 or permission 403 is noted on its way through. */
  github: GitHubClient;
  /** The first access problem seen, if any. */
  problem(): AccessProblem | undefined;
}

/**
 * Wraps a client so that the Action can tell that the token was the problem. `onProblem` is called
 * once, at the first one: the Action stops the job there, before the model is paid for work that
 * could not be reported or published.
 */
export function watchGitHubAccess(github: GitHubClient, onProblem: (problem: AccessProblem) => void = () => {}): WatchedGitHub {
  let first: AccessProblem | undefined;
  const watched: Partial<Record<Method, unknown>> = {};
  for (const method of Object.keys(NEEDS) as Method[]) {
    const call = github[method] as (...args: unknown[]) => Promise<unknown>;
    watched[method] = async (...args: unknown[]) => {
      try {
        return await call.apply(github, args);
      } catch (error) {
        const problem = first === undefined ? accessProblemOf(method, error) : undefined;
        if (problem) {
          first = problem;
          onProblem(problem);
        }
        throw error;
      }
    };
  }
  return { github: { ...(watched as Omit<GitHubClient, "gitToken">), gitToken: github.gitToken }, problem: () => first };
}

/**
 * Whether the token may push, asked the way `git push` asks first: the receive-pack advertisement of
 * smart HTTP, which GitHub answers 401 (bad token) or 403 (no `contents: write`) before anything is
 * sent. It changes nothing, and it comes before the model is paid for, not after. A network failure
 * is no verdict: the push itself will tell.
 */
export async function checkPushAccess(gitUrl: string, token: string, signal?: AbortSignal): Promise<AccessProblem | undefined> {
  let response: Response;
  try {
    response = await fetch(`${gitUrl}/info/refs?service=git-receive-pack`, {
      headers: { authorization: `Basic ${Buffer.from(`x-access-token:${token}`).toString("base64")}`, "user-agent": "git/2 (tackle)" },
      redirect: "manual",
      signal: signal ? AbortSignal.any([signal, AbortSignal.timeout(30_000)]) : AbortSignal.timeout(30_000),
    });
  } catch {
    return undefined;
  }
  // Masked with the token the request carried before it is cut: a cut through an echoed token leaves a piece no later mask finds.
  const detail = response.status === 401 || response.status === 403 ? cutMasked(createRedactor([token])((await response.text()).trim()), 300, "cut") : "";
  await response.body?.cancel().catch(() => undefined);
  if (response.status === 401) return { status: 401, doing: "push to the repository", permissions: [], detail };
  if (response.status === 403) return { status: 403, doing: "push to the repository", permissions: [["contents: write"]], detail };
  return undefined;
}

/**
 * The user the token acts as, from `GET /user`: a personal access token's owner (whose comments are then
 * Tackle's own). The workflow's GITHUB_TOKEN is an installation token, which GitHub answers 403 ("Resource
 * not accessible by integration"): undefined then, as for any other failure, and the caller keeps
 * `github-actions[bot]`. Asked without Octokit's retries: this is a check on the way, not the job.
 */
export async function learnTokenLogin(apiUrl: string, token: string, signal?: AbortSignal): Promise<string | undefined> {
  try {
    const response = await fetch(`${apiUrl.replace(/\/+$/, "")}/user`, {
      headers: {
        authorization: `Bearer ${token}`,
        accept: "application/vnd.github+json",
        "x-github-api-version": "2022-11-28",
        "user-agent": "tackle-action",
      },
      signal: signal ? AbortSignal.any([signal, AbortSignal.timeout(30_000)]) : AbortSignal.timeout(30_000),
    });
    if (!response.ok) {
      await response.body?.cancel().catch(() => undefined);
      return undefined;
    }
    const { login } = (await response.json()) as { login?: unknown };
    return typeof login === "string" && login !== "" ? login : undefined;
  } catch {
    return undefined;
  }
}

const code = (text: string) => `\`${text}\``;

/** The step's failure message: what went wrong, and what to change in the workflow. */
export function describeAccessProblem(problem: AccessProblem): string {
  const said = problem.detail ? `: ${problem.detail}` : "";
  if (problem.status === 401) {
    return (
      `GitHub rejected the token Tackle was given (HTTP 401 when trying to ${problem.doing}${said}). ` +
      "Check the Tackle step's `github_token` input: leave it out to use the workflow's own token (`${{ github.token }}`), " +
      "or pass a token that is valid, not expired and not revoked."
    );
  }
  const wanted = problem.permissions.map((set) => set.map(code).join(" and ")).join(" or ");
  const pullRequestSetting =
    problem.doing === "open the pull request"
      ? ' If the workflow already grants it, the repository (or its organization) must also allow it: Settings → Actions → General → Workflow permissions → "Allow GitHub Actions to create and approve pull requests".'
      : "";
  return (
    `The workflow's token may not ${problem.doing} (HTTP 403${said}); it needs ${wanted}. ` +
    `Add it to the workflow's \`permissions:\` block, which for Tackle is ${REQUIRED_PERMISSIONS.map(code).join(", ")}.${pullRequestSetting}`
  );
}
