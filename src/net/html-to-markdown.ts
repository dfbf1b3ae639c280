import TurndownService from "turndown";

/** Elements whose content is code or chrome, not text a reader sees. */
const DROPPED = new Set(["script", "style", "noscript", "iframe", "svg", "template", "object", "embed"]);

let service: TurndownService | undefined;

/** HTML as markdown (turndown), without scripts, styles, frames and inline graphics. */
export function htmlToMarkdown(html: string): string {
  service ??= new TurndownService({ headingStyle: "atx", codeBlockStyle: "fenced", bulletListMarker: "-" }).remove((node) =>
    DROPPED.has(node.nodeName.toLowerCase()),
  );
  return service.turndown(html).trim();
}
