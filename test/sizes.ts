/**
 * How much the fuzz, property, interleaving and soak tests do, in one place. The defaults are sized for
 * `npm test` and CI on two cores; set the variable for a longer hunt, and the seed a failure printed to
 * replay it (docs/testing.md).
 */

/** A positive whole number from the environment, or the default; anything else stops the run saying why. */
function whole(name: string, fallback: number): number {
  const value = process.env[name];
  if (value === undefined || value === '') return fallback;
  const parsed = Number(value);
  if (!Number.isInteger(parsed) || parsed < 1)
    throw new Error(`${name} must be a whole number of 1 or more; got "${value}".`);
  return parsed;
}

/** A fast-check seed from the environment, or undefined for a fresh one. */
function seed(name: string): number | undefined {
  const value = process.env[name];
  return value ? whole(name, 0) : undefined;
}

const interleaveRuns = process.env.INTERLEAVE_RUNS ? whole('INTERLEAVE_RUNS', 150) : undefined;

export const sizes = {
  /** src/http/fuzz.http.test.ts: hostile bodies per route (`FUZZ_RUNS`, `FUZZ_SEED`). */
  fuzz: { runs: whole('FUZZ_RUNS', 600), seed: seed('FUZZ_SEED') },
  /** src/kinds/url.test.ts: addresses tried per property (`PROPERTY_RUNS`). */
  property: { runs: whole('PROPERTY_RUNS', 2000) },
  /**
   * test/interleavings.test.ts: schedules tried on a memory store and on a SQLite file (`INTERLEAVE_RUNS`
   * sets both; `INTERLEAVE_SEED`).
   */
  interleave: { memoryRuns: interleaveRuns ?? 150, sqliteRuns: interleaveRuns ?? 40, seed: seed('INTERLEAVE_SEED') },
  /** test/soak.test.ts: seconds of load and conversations at once (`SOAK_SECONDS`, `SOAK_CONCURRENCY`). */
  soak: { seconds: whole('SOAK_SECONDS', 3), concurrency: whole('SOAK_CONCURRENCY', 8) },
};
