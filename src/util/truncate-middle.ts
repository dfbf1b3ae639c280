/**
 * Cuts `text` to about `maxChars`, keeping the head and the tail (where errors and summaries tend
 * to be) and saying in the middle what was left out and how to get it.
 */
export function truncateMiddle(text: string, maxChars: number, hint: string): string {
  if (text.length <= maxChars) return text;
  const budget = Math.max(0, maxChars - 200);
  let headEnd = Math.floor(budget * 0.6);
  let tailStart = text.length - (budget - headEnd);
  // Prefer whole lines when a line break is near the cut.
  const lineEnd = text.lastIndexOf("\n", headEnd);
  if (lineEnd > headEnd * 0.8) headEnd = lineEnd + 1;
  const lineStart = text.indexOf("\n", tailStart);
  if (lineStart !== -1 && lineStart - tailStart < (text.length - tailStart) * 0.2) tailStart = lineStart + 1;

  // Never split a surrogate pair (an emoji): half of one is not text, and GitHub may refuse the body.
  if (headEnd > 0 && isHighSurrogate(text.charCodeAt(headEnd - 1))) headEnd--;
  if (tailStart < text.length && isLowSurrogate(text.charCodeAt(tailStart))) tailStart++;
  const omitted = text.slice(headEnd, tailStart);
  const omittedLines = omitted.split("\n").length - 1;
  const note = `\n[... ${omitted.length} characters (${omittedLines} lines) omitted from the middle; ${hint} ...]\n`;
  return text.slice(0, headEnd) + note + text.slice(tailStart);
}

const isHighSurrogate = (code: number): boolean => code >= 0xd800 && code <= 0xdbff;
const isLowSurrogate = (code: number): boolean => code >= 0xdc00 && code <= 0xdfff;
