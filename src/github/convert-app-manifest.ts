import { Octokit } from "@octokit/rest";
import { TackleError } from "../errors/index.js";

/** What GitHub returns once for an App registered from a manifest: its identity and its credentials. */
export interface RegisteredApp {
  id: number;
  slug: string;
  name: string;
  /** The App's page, e.g. https://github.com/apps/<slug>; installs at `${htmlUrl}/installations/new`. */
  htmlUrl: string;
  /** The private key, PEM. */
  pem: string;
  /** Null when the manifest asked for no webhook. */
  webhookSecret: string | null;
}

/**
 * The last step of GitHub's manifest flow: `POST {api}/app-manifests/{code}/conversions` trades the
 * one-time code from the redirect (valid for an hour) for the new App's id, key and webhook secret.
 * The request carries no credential: the code is one.
 */
export async function convertAppManifest(options: { apiUrl: string; code: string }): Promise<RegisteredApp> {
  const octokit = new Octokit({ baseUrl: options.apiUrl, userAgent: "tackle" });
  try {
    const { data } = await octokit.request("POST /app-manifests/{code}/conversions", { code: options.code });
    if (!data.slug) throw new TackleError("github_api", "GitHub's manifest conversion returned no slug");
    return { id: data.id, slug: data.slug, name: data.name, htmlUrl: data.html_url, pem: data.pem, webhookSecret: data.webhook_secret };
  } catch (error) {
    if (error instanceof TackleError) throw error;
    const status = (error as { status?: unknown }).status;
    const detail = error instanceof Error ? error.message : String(error);
    if (status === 404) {
      throw new TackleError("not_found", "GitHub does not know this manifest code: it is valid once, for one hour. Register the App again.", { cause: error });
    }
    if (status === 422) throw new TackleError("github_api", `GitHub refused the manifest: ${detail}`, { cause: error });
    throw new TackleError("github_api", `the manifest conversion at ${options.apiUrl} failed: ${detail}`, { cause: error, retryable: true });
  }
}
