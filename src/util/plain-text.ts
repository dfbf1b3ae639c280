/**
 * Text printed where a terminal or a log reader interprets it: a local run's output, `tackle memory`,
 * `tackle receive` and the Action's step log. The model's words (a report, a summary, a memory), file
 * names from its commits and the repository's text reach them, so control and invisible format
 * characters (bidi overrides among them) are shown as `\u{1b}` instead: ESC starts terminal sequences
 * (OSC 52 writes the user's clipboard; cursor moves rewrite earlier lines), and in the Action's log a
 * line starting with `::` is a workflow command to the runner (`::set-output`, `::add-mask::`).
 */

/** Controls, invisible format characters, and the line and paragraph separators. */
const CONTROLS = /[\p{Cc}\p{Cf}\p{Zl}\p{Zp}]/gu;

/** `text` with every such character shown as `\u{…}`; with `keepLines`, line feeds and tabs stay as they are. */
export function escapeControls(text: string, options: { keepLines: boolean }): string {
  return text.replace(CONTROLS, (char) => (options.keepLines && (char === "\n" || char === "\t") ? char : `\\u{${char.codePointAt(0)!.toString(16)}}`));
}

/** `text` for a terminal: its lines and tabs kept, every other control shown, not sent. */
export function terminalText(text: string): string {
  return escapeControls(text, { keepLines: true });
}

/** `text` as one line of a log the runner reads for workflow commands: no line break of any kind. */
export function oneLogLine(text: string): string {
  return escapeControls(text, { keepLines: false });
}
