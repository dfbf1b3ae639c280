/**
 * A fake GitHub Enterprise Server on 127.0.0.1: REST under `/api/v3` and git smart HTTP at
 * `/{owner}/{repo}.git`, with App JWT auth and installation tokens. Real Octokit, Probot and git
 * talk to it unchanged; tests seed it, drive the code under test, then assert on its state or on
 * the request log.
 */
import { mkdir, mkdtemp, rm } from "node:fs/promises";
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { generateAppKey } from "./app-jwt.js";
import { createFailureInjector, type FailureRule } from "./failure-injection.js";
import * as gitOps from "./fake-github-git.js";
import type { SeedFile } from "./fake-github-git.js";
import type { AppInfo, World } from "./fake-github-http.js";
import { renderIssue, renderPull } from "./fake-github-render.js";
import { newInstallationToken } from "./fake-github-routes-app.js";
import { createRequestHandler } from "./fake-github-server.js";
import * as store from "./fake-github-state.js";
import type { CommentRecord, IssueRecord, ReactionRecord, RepoRecord, ReviewCommentRecord, Role, TokenPermissions, TokenRecord } from "./fake-github-state.js";
import { githubLinks, isoTime, type AccountType } from "./github-json.js";
import { createRequestLog, type RequestFilter, type RequestLogEntry } from "./request-log.js";
import type { RepoContext } from "./webhooks.js";

export type { FailureRule } from "./failure-injection.js";
export type { RequestFilter, RequestLogEntry } from "./request-log.js";
export type { SeedFile } from "./fake-github-git.js";
export type { CommentRecord, IssueRecord, ReactionRecord, ReviewCommentRecord, Role, TokenPermissions, TokenRecord } from "./fake-github-state.js";

export interface FakeGitHubOptions {
  /** @defaultValue 424242 */
  appId?: number;
  /** The App's slug; its bot user is `<slug>[bot]`. @defaultValue "tackle" */
  appSlug?: string;
  /** @defaultValue "Tackle" */
  appName?: string;
  /** @defaultValue "tackle-dev" */
  appOwner?: string;
  /** @defaultValue "fake-webhook-secret" */
  webhookSecret?: string;
  /** What the App was granted; installation tokens get these unless they ask for fewer. @defaultValue contents, issues, pull_requests write; metadata read (no workflows) */
  appPermissions?: TokenPermissions;
  /**
   * Long-lived tokens (PATs, an Action's GITHUB_TOKEN) mapped to the login they act as, or to a
   * login and permissions. They see every repository. @defaultValue {}
   */
  staticTokens?: Record<string, string | { login: string; permissions?: TokenPermissions }>;
  /** Lifetime of minted installation tokens. @defaultValue 3_600_000 (one hour, as on GitHub) */
  tokenTtlMs?: number;
  /** Id of the first installation created. @defaultValue 1001 */
  firstInstallationId?: number;
  /** Delay before every answer. @defaultValue 0 */
  latencyMs?: number;
}

export interface AddRepoOptions {
  owner: string;
  name: string;
  /** @defaultValue "main" */
  defaultBranch?: string;
  /** Private repositories need a token even to clone. @defaultValue true */
  private?: boolean;
  /** @defaultValue "User" */
  ownerType?: "User" | "Organization";
  /** Files of the initial commit. @defaultValue { "README.md": "# <name>\n" } */
  files?: Record<string, SeedFile>;
  /** Further commits on top of the initial one (on the default branch unless `branch` is set). */
  commits?: Array<{ message: string; files: Record<string, SeedFile>; branch?: string }>;
  /** Make this repo a fork of another seeded repo: it starts with the parent's branches. */
  forkOf?: { owner: string; name: string };
  /** Whether the App is installed on the owner's account. @defaultValue true (false for forks) */
  installed?: boolean;
  description?: string;
}

export interface RepoInfo {
  owner: string;
  name: string;
  fullName: string;
  defaultBranch: string;
  installationId: number;
  cloneUrl: string;
  bareRepoPath: string;
  headSha: string;
}

export interface FakeGitHub {
  /** http://127.0.0.1:PORT, the GHE host root (`GHE_HOST` is its host:port, `GHE_PROTOCOL` http). */
  readonly url: string;
  /** `${url}/api/v3` */
  readonly apiUrl: string;
  gitUrl(owner: string, repo: string): string;
  readonly appId: number;
  readonly appSlug: string;
  /** `<slug>[bot]` */
  readonly botLogin: string;
  readonly privateKeyPem: string;
  readonly webhookSecret: string;
  /** Probot's variables for this App on this server: APP_ID, PRIVATE_KEY, WEBHOOK_SECRET, GHE_HOST, GHE_PROTOCOL. */
  appEnv(): Record<string, string>;
  /** The Actions variables that locate this server: GITHUB_API_URL, GITHUB_SERVER_URL. */
  actionEnv(): Record<string, string>;
  /** Raw state, for assertions the helpers below do not cover. */
  readonly state: store.GitHubState;
  close(): Promise<void>;

  addRepo(options: AddRepoOptions): Promise<RepoInfo>;
  /**
   * Gives the repository under this name another numeric id: GitHub's answer once the repository was
   * deleted and a new one created under its name, or once another repository was renamed to it.
   */
  setRepoId(owner: string, name: string, id: number): void;
  addUser(login: string, type?: AccountType): void;
  setPermission(owner: string, repo: string, user: string, role: Role): void;
  /** `user` (the author) defaults to "alice", like the webhook builders' sender. */
  addIssue(options: {
    owner: string;
    repo: string;
    title: string;
    body?: string | null;
    user?: string;
    labels?: string[];
    assignees?: string[];
    state?: "open" | "closed";
    number?: number;
  }): IssueRecord;
  addComment(options: { owner: string; repo: string; issueNumber: number; body: string; user: string }): CommentRecord;
  /** A pull request from `head` (a branch of this repo, or of `headOwner`'s fork). `files` are committed on the head branch first. */
  addPullRequest(options: {
    owner: string;
    repo: string;
    head: string;
    base?: string;
    headOwner?: string;
    title?: string;
    body?: string;
    user?: string;
    draft?: boolean;
    files?: Record<string, SeedFile>;
    message?: string;
  }): Promise<IssueRecord>;
  addReviewComment(options: {
    owner: string;
    repo: string;
    pullNumber: number;
    body: string;
    user: string;
    path: string;
    line?: number;
  }): Promise<ReviewCommentRecord>;
  /** Commits straight into the bare repo; the branch is created from `from` (default branch by default). */
  commitFiles(owner: string, repo: string, branch: string, files: Record<string, SeedFile>, options?: { message?: string; from?: string }): Promise<string>;

  installationId(owner: string): number;
  /** Fields for the webhook payload builders, consistent with this server. */
  repoContext(owner: string, repo: string): RepoContext;
  /** An installation token without the JWT exchange, for tests that only need a credential. */
  mintToken(options: { owner: string; permissions?: TokenPermissions; repositories?: string[]; ttlMs?: number }): string;
  tokens(): TokenRecord[];
  /** Expires every minted installation token (or the given one); static tokens never expire. */
  expireTokens(token?: string): void;
  revokeToken(token: string): void;

  getIssue(owner: string, repo: string, number: number): IssueRecord | undefined;
  /** The issue as the REST API would return it. */
  issueJson(owner: string, repo: string, number: number): ReturnType<typeof renderIssue> | undefined;
  pullJson(owner: string, repo: string, number: number): Promise<Awaited<ReturnType<typeof renderPull>> | undefined>;
  comments(owner: string, repo: string, issueNumber: number): CommentRecord[];
  reviewComments(owner: string, repo: string, pullNumber: number): ReviewCommentRecord[];
  reactions(owner: string, repo: string, target?: { issueNumber: number } | { commentId: number } | { reviewCommentId: number }): ReactionRecord[];
  pulls(owner: string, repo: string): IssueRecord[];
  readFile(owner: string, repo: string, ref: string, path: string): Promise<string | undefined>;
  /** The bare repository behind a repo, for baselines that read it with plain git (file://). */
  gitDir(owner: string, repo: string): string;
  branchSha(owner: string, repo: string, branch: string): Promise<string | undefined>;
  bareRepoPath(owner: string, repo: string): string;

  requests(filter?: RequestFilter): RequestLogEntry[];
  clearLog(): void;
  onRequest(listener: (entry: RequestLogEntry) => void): () => void;
  waitFor<T>(predicate: () => T | undefined | null | false | Promise<T | undefined | null | false>, timeoutMs?: number): Promise<T>;
  waitForRequest(filter: RequestFilter, timeoutMs?: number): Promise<RequestLogEntry>;
  failNext(rule: FailureRule): void;
  clearFailures(): void;
  /** A delay before every answer, or one chosen per request (method, path). */
  setLatency(ms: number | ((request: { method: string; path: string }) => number)): void;
}

const DEFAULT_PERMISSIONS: TokenPermissions = { contents: "write", issues: "write", pull_requests: "write", metadata: "read" };
const ALL_PERMISSIONS: TokenPermissions = { ...DEFAULT_PERMISSIONS, workflows: "write", administration: "write" };

export async function startFakeGitHub(options: FakeGitHubOptions = {}): Promise<FakeGitHub> {
  const dir = await mkdtemp(join(tmpdir(), "fake-github-"));
  const git: gitOps.GitContext = { root: join(dir, "repos"), home: join(dir, "home") };
  await mkdir(git.root, { recursive: true });
  await mkdir(git.home, { recursive: true });
  const key = generateAppKey();
  const app: AppInfo = {
    id: options.appId ?? 424242,
    slug: options.appSlug ?? "tackle",
    name: options.appName ?? "Tackle",
    owner: options.appOwner ?? "tackle-dev",
    privateKeyPem: key.privateKeyPem,
    publicKey: key.publicKey,
    permissions: options.appPermissions ?? DEFAULT_PERMISSIONS,
    events: ["issues", "issue_comment", "pull_request_review", "pull_request_review_comment"],
    webhookSecret: options.webhookSecret ?? "fake-webhook-secret",
  };
  const state = store.createState(options.firstInstallationId ?? 1001);
  for (const [token, value] of Object.entries(options.staticTokens ?? {})) {
    const spec = typeof value === "string" ? { login: value } : value;
    state.tokens.set(token, {
      token,
      kind: "static",
      login: spec.login,
      expiresAt: Infinity,
      revoked: false,
      permissions: spec.permissions ?? ALL_PERMISSIONS,
      createdAt: Date.now(),
    });
    store.ensureUser(state, spec.login);
  }
  // The bot is a known user from the start, so permission look-ups for it answer like GitHub's.
  store.ensureUser(state, `${app.slug}[bot]`, "Bot");
  // links get the real port once the server listens, before any request can arrive.
  const world: World = {
    state,
    git,
    app,
    links: githubLinks("http://127.0.0.1"),
    tokenTtlMs: options.tokenTtlMs ?? 3_600_000,
    manifests: new Map(),
    appNames: new Set([app.name.toLowerCase()]),
  };
  const log = createRequestLog();
  const failures = createFailureInjector();
  let latencyMs: (request: { method: string; path: string }) => number = () => options.latencyMs ?? 0;

  const server = createServer(createRequestHandler({ world, log, failures, latencyMs: (request) => latencyMs(request) }));

  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const port = (server.address() as AddressInfo).port;
  world.links = githubLinks(`http://127.0.0.1:${port}`);

  const repoOrThrow = (owner: string, name: string): RepoRecord => {
    const repo = store.findRepo(state, owner, name);
    if (!repo) throw new Error(`fake GitHub: no repository ${owner}/${name}`);
    return repo;
  };
  const mint = (owner: string, permissions?: TokenPermissions, repositories?: string[], ttlMs = world.tokenTtlMs): string => {
    const installation = [...state.installations.values()].find((i) => i.account.toLowerCase() === owner.toLowerCase());
    if (!installation) throw new Error(`fake GitHub: the App is not installed on ${owner}`);
    const token = newInstallationToken();
    state.tokens.set(token, {
      token,
      kind: "installation",
      installationId: installation.id,
      login: `${world.app.slug}[bot]`,
      expiresAt: Date.now() + ttlMs,
      revoked: false,
      permissions: permissions ?? { ...world.app.permissions },
      ...(repositories ? { repositories: repositories.map((r) => r.toLowerCase()) } : {}),
      createdAt: Date.now(),
    });
    return token;
  };

  const fake: FakeGitHub = {
    url: world.links.web,
    apiUrl: world.links.api,
    gitUrl: (owner, repo) => `${world.links.web}/${owner}/${repo}.git`,
    // Read from the world: an App registered through the manifest flow becomes this server's App.
    get appId() {
      return world.app.id;
    },
    get appSlug() {
      return world.app.slug;
    },
    get botLogin() {
      return `${world.app.slug}[bot]`;
    },
    get privateKeyPem() {
      return world.app.privateKeyPem;
    },
    get webhookSecret() {
      return world.app.webhookSecret;
    },
    state,
    appEnv: () => ({
      APP_ID: String(world.app.id),
      PRIVATE_KEY: world.app.privateKeyPem,
      WEBHOOK_SECRET: world.app.webhookSecret,
      GHE_HOST: new URL(world.links.web).host,
      GHE_PROTOCOL: "http",
    }),
    actionEnv: () => ({ GITHUB_API_URL: world.links.api, GITHUB_SERVER_URL: world.links.web }),

    async close() {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
      await rm(dir, { recursive: true, force: true });
    },

    setRepoId(owner, name, id) {
      repoOrThrow(owner, name).id = id;
    },

    async addRepo(opts) {
      const defaultBranch = opts.defaultBranch ?? "main";
      const ownerType = opts.ownerType ?? "User";
      if (store.findRepo(state, opts.owner, opts.name)) throw new Error(`fake GitHub: ${opts.owner}/${opts.name} already exists`);
      const installed = opts.installed ?? !opts.forkOf;
      const installationId = installed ? store.ensureInstallation(state, opts.owner, ownerType).id : 0;
      const gitDir = join(git.root, opts.owner.toLowerCase(), `${opts.name.toLowerCase()}.git`);
      await gitOps.initBareRepo(git, gitDir, defaultBranch);
      const now = isoTime();
      const repo: RepoRecord = {
        owner: opts.owner,
        ownerType,
        name: opts.name,
        defaultBranch,
        private: opts.private ?? true,
        fork: Boolean(opts.forkOf),
        description: opts.description ?? null,
        createdAt: now,
        pushedAt: now,
        gitDir,
        installationId,
        nextNumber: 1,
        labels: new Map(),
        roles: new Map(),
        ...(opts.forkOf ? { parent: `${opts.forkOf.owner}/${opts.forkOf.name}` } : {}),
      };
      store.ensureUser(state, opts.owner, ownerType);
      if (opts.forkOf) {
        const parent = repoOrThrow(opts.forkOf.owner, opts.forkOf.name);
        await gitOps.git(git, gitDir, ["fetch", "--quiet", parent.gitDir, "+refs/heads/*:refs/heads/*"]);
      } else {
        const files = opts.files ?? { "README.md": `# ${opts.name}\n` };
        await gitOps.commitFiles(git, gitDir, { branch: defaultBranch, files, message: "Initial commit" });
      }
      for (const commit of opts.commits ?? []) {
        await gitOps.commitFiles(git, gitDir, {
          branch: commit.branch ?? defaultBranch,
          files: commit.files,
          message: commit.message,
          from: `refs/heads/${defaultBranch}`,
        });
      }
      state.repos.set(store.repoKey(opts.owner, opts.name), repo);
      return {
        owner: repo.owner,
        name: repo.name,
        fullName: `${repo.owner}/${repo.name}`,
        defaultBranch,
        installationId,
        cloneUrl: fake.gitUrl(repo.owner, repo.name),
        bareRepoPath: gitDir,
        headSha: (await gitOps.branchSha(git, gitDir, defaultBranch)) ?? "",
      };
    },

    addUser: (login, type) => store.ensureUser(state, login, type),
    setPermission(owner, repo, user, role) {
      repoOrThrow(owner, repo).roles.set(user.toLowerCase(), role);
      store.ensureUser(state, user);
    },
    addIssue(opts) {
      const repo = repoOrThrow(opts.owner, opts.repo);
      return store.createIssue(state, repo, {
        title: opts.title,
        body: opts.body ?? null,
        user: opts.user ?? "alice",
        labels: opts.labels ?? [],
        assignees: opts.assignees ?? [],
        state: opts.state ?? "open",
        ...(opts.number === undefined ? {} : { number: opts.number }),
      });
    },
    addComment(opts) {
      const issue = store.findIssue(state, opts.owner, opts.repo, opts.issueNumber);
      if (!issue) throw new Error(`fake GitHub: no issue ${opts.owner}/${opts.repo}#${opts.issueNumber}`);
      return store.addIssueComment(state, issue, opts.body, opts.user);
    },
    async addPullRequest(opts) {
      const base = repoOrThrow(opts.owner, opts.repo);
      const baseRef = opts.base ?? base.defaultBranch;
      const headRepo = opts.headOwner
        ? [...state.repos.values()].find(
            (r) => r.owner.toLowerCase() === opts.headOwner?.toLowerCase() && r.parent?.toLowerCase() === `${base.owner}/${base.name}`.toLowerCase(),
          )
        : base;
      if (!headRepo) throw new Error(`fake GitHub: ${opts.headOwner} has no fork of ${base.owner}/${base.name} (addRepo with forkOf first)`);
      if (opts.files) {
        await gitOps.commitFiles(git, headRepo.gitDir, {
          branch: opts.head,
          files: opts.files,
          message: opts.message ?? `Changes on ${opts.head}`,
          from: `refs/heads/${baseRef}`,
        });
      }
      if (!(await gitOps.branchSha(git, headRepo.gitDir, opts.head)))
        throw new Error(`fake GitHub: branch ${opts.head} does not exist in ${headRepo.owner}/${headRepo.name}`);
      const issue = store.createIssue(state, base, {
        title: opts.title ?? `Update ${opts.head}`,
        body: opts.body ?? null,
        user: opts.user ?? (headRepo === base ? "alice" : headRepo.owner),
        pull: {
          head: { owner: headRepo.owner, repo: headRepo.name, ref: opts.head },
          baseRef,
          draft: opts.draft ?? false,
          mergedAt: null,
          maintainerCanModify: true,
        },
      });
      await renderPull(world, issue, false);
      return issue;
    },
    async addReviewComment(opts) {
      const pull = store.findIssue(state, opts.owner, opts.repo, opts.pullNumber);
      if (!pull?.pull) throw new Error(`fake GitHub: no pull request ${opts.owner}/${opts.repo}#${opts.pullNumber}`);
      const json = await renderPull(world, pull, false);
      return store.addReviewComment(state, pull, { body: opts.body, user: opts.user, path: opts.path, line: opts.line ?? 1, commitId: json.head.sha });
    },
    async commitFiles(owner, repo, branch, files, commitOptions = {}) {
      const record = repoOrThrow(owner, repo);
      return gitOps.commitFiles(git, record.gitDir, {
        branch,
        files,
        message: commitOptions.message ?? `Update ${Object.keys(files).join(", ")}`,
        from: commitOptions.from ?? `refs/heads/${record.defaultBranch}`,
      });
    },

    installationId: (owner) => {
      const installation = [...state.installations.values()].find((i) => i.account.toLowerCase() === owner.toLowerCase());
      if (!installation) throw new Error(`fake GitHub: the App is not installed on ${owner}`);
      return installation.id;
    },
    gitDir: (owner, repo) => repoOrThrow(owner, repo).gitDir,
    repoContext(owner, repo) {
      const record = repoOrThrow(owner, repo);
      return {
        serverUrl: world.links.web,
        owner: record.owner,
        repo: record.name,
        ownerType: record.ownerType,
        defaultBranch: record.defaultBranch,
        private: record.private,
        installationId: record.installationId,
      };
    },
    mintToken: (opts) => mint(opts.owner, opts.permissions, opts.repositories, opts.ttlMs),
    tokens: () => [...state.tokens.values()],
    expireTokens(token) {
      for (const record of state.tokens.values()) {
        if (record.kind === "installation" && (token === undefined || record.token === token)) record.expiresAt = Date.now() - 1000;
      }
    },
    revokeToken(token) {
      const record = state.tokens.get(token);
      if (record) record.revoked = true;
    },

    getIssue: (owner, repo, number) => store.findIssue(state, owner, repo, number),
    issueJson(owner, repo, number) {
      const issue = store.findIssue(state, owner, repo, number);
      return issue && renderIssue(world, issue);
    },
    async pullJson(owner, repo, number) {
      const issue = store.findIssue(state, owner, repo, number);
      return issue?.pull ? renderPull(world, issue, true) : undefined;
    },
    comments: (owner, repo, number) => store.issueComments(state, owner, repo, number),
    reviewComments: (owner, repo, number) => store.reviewComments(state, owner, repo, number),
    reactions(owner, repo, target) {
      const key = store.repoKey(owner, repo);
      return state.reactions.filter((r) => {
        if (store.repoKey(r.subject.owner, r.subject.repo) !== key) return false;
        if (!target) return true;
        if ("issueNumber" in target) return r.subject.kind === "issue" && r.subject.number === target.issueNumber;
        if ("commentId" in target) return r.subject.kind === "issue_comment" && r.subject.id === target.commentId;
        return r.subject.kind === "review_comment" && r.subject.id === target.reviewCommentId;
      });
    },
    pulls: (owner, repo) => store.pullsOf(state, owner, repo),
    readFile: (owner, repo, ref, path) => gitOps.showFile(git, repoOrThrow(owner, repo).gitDir, ref, path),
    branchSha: (owner, repo, branch) => gitOps.branchSha(git, repoOrThrow(owner, repo).gitDir, branch),
    bareRepoPath: (owner, repo) => repoOrThrow(owner, repo).gitDir,

    requests: (filter) => log.requests(filter),
    clearLog: () => log.clear(),
    onRequest: (listener) => log.onRequest(listener),
    waitFor: (predicate, timeoutMs) => log.waitFor(predicate, timeoutMs),
    waitForRequest: (filter, timeoutMs) => log.waitForRequest(filter, timeoutMs),
    failNext: (rule) => failures.failNext(rule),
    clearFailures: () => failures.clear(),
    setLatency(ms) {
      latencyMs = typeof ms === "number" ? () => ms : ms;
    },
  };
  return fake;
}
