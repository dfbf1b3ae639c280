/**
 * Text printed where a terminal or a log reader interprets it: a local run's output and the Action's
 * step log. The model's words (a report, a summary), file names from its commits and the repository's
 * text reach both, so control characters are dropped there: ESC starts terminal sequences (OSC 52
 * writes the user's clipboard; cursor moves rewrite earlier lines), and in the Action's log a line
 * starting with `::` is a workflow command to the runner (`::set-output`, `::add-mask::`).
 */

/** C0 controls but tab and line feed, DEL, and C1 controls (0x9b is a one-byte CSI to some terminals). */
const CONTROL = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f]/g;
/** What a reader or the runner takes for the end of a line. */
const LINE_BREAK = /\r\n|[\n\r\u2028\u2029\u0085]/g;

/** `text` for a terminal: line breaks and tabs kept, every other control character dropped (a lone `\r` becomes `\n`). */
export function terminalText(text: string): string {
  return text.replace(/\r\n?/g, "\n").replace(CONTROL, "");
}

/** `text` as one line of a log the runner reads for workflow commands: line breaks shown as ` ⏎ `, controls dropped. */
export function oneLogLine(text: string): string {
  return text.replace(LINE_BREAK, " ⏎ ").replace(CONTROL, "");
}
