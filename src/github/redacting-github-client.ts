import type { Redactor } from "../util/redact.js";
import { maskSurface } from "../util/surface-markdown.js";
import type { GitHubClient } from "./github-client.js";

/**
 * The one place where text bound for GitHub is masked: every comment, comment edit, and pull
 * request title and body passes through `redact` on its way out, whichever code path wrote it.
 * Reads pass straight through. Each method is listed, not spread, so a method added to
 * GitHubClient does not compile here until someone decides whether it sends text. Bodies are
 * SurfaceMarkdown (made inert where they hold outside text); `maskSurface` keeps them so, since a mask
 * is text too. Texts are best masked before they are escaped (escaping can split a secret); this is
 * the last pass, for what was not.
 */
export function redactingGitHubClient(client: GitHubClient, redact: Redactor): GitHubClient {
  return {
    getRepo: (repo) => client.getRepo(repo),
    getPermission: (repo, user) => client.getPermission(repo, user),
    addReaction: (repo, target, content) => client.addReaction(repo, target, content),
    createComment: (repo, number, body) => client.createComment(repo, number, maskSurface(body, redact)),
    updateComment: (repo, commentId, body) => client.updateComment(repo, commentId, maskSurface(body, redact)),
    deleteComment: (repo, commentId) => client.deleteComment(repo, commentId),
    getIssue: (repo, number) => client.getIssue(repo, number),
    listComments: (repo, number, limit) => client.listComments(repo, number, limit),
    listReviewComments: (repo, number) => client.listReviewComments(repo, number),
    getPull: (repo, number) => client.getPull(repo, number),
    findOpenPull: (repo, branch) => client.findOpenPull(repo, branch),
    createPull: (repo, pull) => client.createPull(repo, { ...pull, title: redact(pull.title), body: maskSurface(pull.body, redact) }),
    updatePull: (repo, number, patch) =>
      client.updatePull(repo, number, {
        ...patch,
        ...(patch.title === undefined ? {} : { title: redact(patch.title) }),
        ...(patch.body === undefined ? {} : { body: maskSurface(patch.body, redact) }),
      }),
    getFile: (repo, path, ref) => client.getFile(repo, path, ref),
    gitToken: () => client.gitToken(),
  };
}
