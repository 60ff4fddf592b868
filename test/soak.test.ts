import { describe, expect, it } from 'vitest';
import { describeSoak, runSoak } from '../bench/soak.js';
import { sizes } from './sizes.js';

// The soak's short form, so the long one (`npm run soak`) cannot rot: a few seconds of the same load.
describe('soak (short form)', () => {
  it(
    'many conversations pausing and resuming at once: no unexpected answer, no stuck turn, records match events',
    { timeout: 60_000 },
    async () => {
      const report = await runSoak({ ...sizes.soak, sampleMs: 1000, log: () => undefined });
      console.log(`soak (short): ${describeSoak(report).replaceAll('\n', '; ')}`);
      expect(report.errors).toEqual([]);
      expect(report.stuck).toBe(0);
      expect(report.inconsistent).toBe(0);
      expect(report.conversations).toBeGreaterThan(20);
      expect(Object.keys(report.flows).sort()).toEqual([
        'approve',
        'cancel',
        'client-tool',
        'lapse',
        'questions',
        'two-at-once',
      ]);
    },
  );
});
