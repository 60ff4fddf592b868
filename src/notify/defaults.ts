/** The defaults of `notify` (docs/notifications.md); docs/notifications.md lists them. */
export const notifyDefaults = {
  linkTtlMinutes: 7 * 24 * 60,
  firstDelayMs: 5_000,
  maxDelayMs: 3_600_000,
  giveUpAfterMs: 86_400_000,
  attemptTimeoutMs: 30_000,
  pollIntervalMs: 1_000,
};
