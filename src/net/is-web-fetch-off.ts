/**
 * WebFetch is off when the operator's TACKLE_FETCH_ALLOW or the repository's `web_fetch.allow` is set
 * and empty (unset means any public host). A job then is not offered the tool at all.
 */
export function isWebFetchOff(operator: readonly string[] | null, repository: readonly string[] | undefined): boolean {
  return (operator !== null && operator.length === 0) || (repository !== undefined && repository.length === 0);
}
