/**
 * An artifact's file name as it is stored and served: the base name only, letters, digits and `._ -`
 * (anything else becomes `_`), no leading dot, at most 120 characters. Safe in a path, in a
 * Content-Disposition header and in Markdown link text.
 */
export function safeArtifactName(name: string): string {
  const base = name.split(/[\\/]/).pop() ?? "";
  // Trimmed before the leading dots go, so " .bashrc" cannot come out as ".bashrc".
  const cleaned = base
    .replace(/[^A-Za-z0-9._ -]/g, "_")
    .slice(0, 120)
    .trim()
    .replace(/^\.+/, "_");
  return cleaned === "" ? "artifact" : cleaned;
}
