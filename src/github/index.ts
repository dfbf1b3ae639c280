export {
  createGitHubClient,
  type GitHubClient,
  type RestClient,
  type RepoRef,
  type IssueInfo,
  type CommentInfo,
  type PullInfo,
  type ReactionTarget,
  type ReactionContent,
} from "./github-client.js";
export { redactingGitHubClient } from "./redacting-github-client.js";
export {
  createProbot,
  installationClients,
  tokenClient,
  probotOctokitClass,
  type AppCredentials,
  type OctokitSettings,
} from "./octokit-factory.js";
export { convertAppManifest, type RegisteredApp } from "./convert-app-manifest.js";
