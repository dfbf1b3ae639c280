/** `renovate` in the list admits `renovate[bot]` too: people write bot names either way. */
export function isAllowedBot(login: string, allowedBots: readonly string[]): boolean {
  const lower = login.toLowerCase();
  return allowedBots.some((entry) => {
    const allowed = entry.trim().toLowerCase();
    return allowed === lower || `${allowed}[bot]` === lower;
  });
}
