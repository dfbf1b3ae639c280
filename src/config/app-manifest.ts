import { parse as parseYaml } from "yaml";
import { z } from "zod";
import { TackleError } from "../errors/index.js";

/**
 * A GitHub App manifest, as `tackle setup` posts it to `{web}/settings/apps/new`: `app.yml`'s fields,
 * with the webhook URL and the redirect back to the local page filled in.
 */
export interface AppManifest {
  name: string;
  /** The App's homepage (required by GitHub). */
  url: string;
  description?: string;
  public: boolean;
  hook_attributes: { url: string; active: boolean };
  /** Where GitHub sends the browser with `?code=…&state=…` once the App is registered. */
  redirect_url: string;
  default_permissions: Record<string, "read" | "write" | "admin">;
  default_events: string[];
  /** Any other manifest field app.yml sets (setup_url, callback_urls, …), passed on as written. */
  [field: string]: unknown;
}

const httpUrl = z.url({ protocol: /^https?$/ });

const manifestSchema = z.looseObject({
  // GitHub's limit on an App's name.
  name: z.string().trim().min(1).max(34),
  url: httpUrl,
  description: z.string().optional(),
  public: z.boolean().default(false),
  hook_attributes: z.looseObject({ active: z.boolean().default(true) }).default({ active: true }),
  default_permissions: z.record(z.string(), z.enum(["read", "write", "admin"])),
  default_events: z.array(z.string()),
});

/**
 * The manifest from `app.yml`'s text. `name` overrides the file's (App names are unique on a GitHub
 * server, so a second Tackle needs its own). Every problem is reported at once.
 */
export function buildAppManifest(yamlText: string, options: { source: string; webhookUrl: string; redirectUrl: string; name?: string }): AppManifest {
  let raw: unknown;
  try {
    raw = parseYaml(yamlText);
  } catch (error) {
    throw new TackleError("config_invalid", `${options.source} is not valid YAML: ${error instanceof Error ? error.message : String(error)}`);
  }
  const withName = typeof raw === "object" && raw !== null && options.name !== undefined ? { ...raw, name: options.name } : raw;
  const parsed = manifestSchema.safeParse(withName);
  if (!parsed.success) {
    const problems = parsed.error.issues.map((issue) => `- \`${issue.path.join(".") || "(file)"}\`: ${issue.message}`);
    throw new TackleError("config_invalid", `${options.source} is not a usable App manifest:\n${problems.join("\n")}`);
  }
  const manifest = parsed.data;
  return {
    ...manifest,
    hook_attributes: { ...manifest.hook_attributes, url: options.webhookUrl },
    redirect_url: options.redirectUrl,
  } as AppManifest;
}
