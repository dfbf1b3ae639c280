export type { GitHubClient, RepoRef, IssueInfo, CommentInfo, ReactionTarget } from "./github-client.js";
export { redactingGitHubClient } from "./redacting-github-client.js";
export { createProbot, installationClients, tokenClient, type OctokitSettings } from "./octokit-factory.js";
export { convertAppManifest, type RegisteredApp } from "./convert-app-manifest.js";
export { freezeThread, readThread, type ThreadSource } from "./issue-thread.js";
export {
  createAccessCache,
  createTrustCheck,
  describeAccess,
  isBotLogin,
  isWriter,
  type AccessOf,
  type RepoAccess,
  type TrustCheck,
} from "./repo-access.js";
