import { inert, joinMarkdown, md, type SurfaceMarkdown } from "../util/surface-markdown.js";

/**
 * A problem may quote the repository's text (a key, a pattern that is no regular expression): each is
 * cut to this many characters (after masking), which also bounds inert's work on it.
 */
export const PROBLEM_CHARS = 2_000;
/** The most problems one reply lists; the rest are counted. The first ones are enough to start fixing. */
export const MAX_LISTED_PROBLEMS = 20;
/**
 * The longest reply about problems, in characters. GitHub refuses a comment over 65,536 (the reply
 * would be lost, and with it the diagnosis); this leaves room for the redactor's masks and its
 * code-block fallback, which the redacting client may still apply.
 */
export const MAX_PROBLEM_REPLY_CHARS = 30_000;

/**
 * The reply naming what is wrong with the repository's files (`.github/tackle.yml`, its agents and
 * skills): `heading`, then a list of the first problems, each masked, cut and shown inert, as many as
 * fit in MAX_LISTED_PROBLEMS and MAX_PROBLEM_REPLY_CHARS, then how many more there are, then
 * `closing`. Only the problems shown are masked and escaped, so ten thousand cost no more than twenty.
 */
export function problemComment(
  heading: SurfaceMarkdown,
  problems: readonly string[],
  closing: SurfaceMarkdown,
  redact: (text: string) => string,
): SurfaceMarkdown {
  const more = (count: number) => (count === 1 ? md`- …and 1 more problem, not listed here.` : md`- …and ${count} more problems, not listed here.`);
  // Room for the frame and the longest "more" line, so the last item that fits still leaves it room.
  let size = heading.length + closing.length + more(problems.length).length + 4;
  const items: SurfaceMarkdown[] = [];
  for (const problem of problems.slice(0, MAX_LISTED_PROBLEMS)) {
    const item = md`- ${inert(redact(problem), { maxChars: PROBLEM_CHARS })}`;
    if (size + item.length + 1 > MAX_PROBLEM_REPLY_CHARS) break;
    items.push(item);
    size += item.length + 1;
  }
  const left = problems.length - items.length;
  return joinMarkdown([heading, md``, ...items, ...(left > 0 ? [more(left)] : []), md``, closing]);
}
