/** A settled line: the outcome, then what the answer said in brackets when it said more (`Denied ("not today")`). */
export function withDetail(outcome: string, detail: string | undefined): string {
  return detail ? `${outcome} (${detail})` : outcome;
}

/** A value as JSON over several lines, for a request read in full. */
export function jsonLines(value: unknown): string {
  return JSON.stringify(value, null, 2) ?? 'undefined';
}
