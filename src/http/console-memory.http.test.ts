/**
 * Issue 11, item 3: unknown paths under the console must not grow the heap. Before, every miss was
 * cached by its full path (15,000 unknown 8 KB paths grew the heap by 120 MB); the build is now read
 * once at start into a fixed map.
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { serve, type RunningServer } from '../cli/serve.js';
import { memoryStore } from '../store/memory/memory-store.js';
import { scriptedModel } from '../testing/index.js';
import { MB, settledMemory } from '../../test/memory-probe.js';

describe('the console under a flood of unknown paths', () => {
  const dir = mkdtempSync(join(tmpdir(), 'heed-console-flood-'));
  let server: RunningServer;

  beforeAll(async () => {
    mkdirSync(join(dir, 'assets'));
    writeFileSync(join(dir, 'index.html'), '<!doctype html><title>Heed</title>');
    writeFileSync(join(dir, 'assets', 'app-1.js'), 'console.log(1)');
    server = await serve({
      config: {
        agents: [{ name: 'echo', model: scriptedModel(() => ({ text: 'hi' })) }],
        store: memoryStore(),
        sweepIntervalMs: 0,
      },
      port: 0,
      console: dir,
      log: () => undefined,
    });
  });
  afterAll(async () => {
    await server.close();
    rmSync(dir, { recursive: true, force: true });
  });

  // A deadline, not a wait: 2,200 requests and the collections that measure them, on two cores that may be busy.
  it(
    'serves 2,000 unknown 8 KB paths, no token needed, without keeping anything for them',
    { timeout: 60_000 },
    async () => {
      const get = async (path: string) => {
        const response = await fetch(`${server.url}${path}`);
        await response.arrayBuffer();
        return response.status;
      };
      const filler = 'a'.repeat(8 * 1024);
      const flood = async (prefix: string, count: number) => {
        let next = 0;
        const statuses = new Map<number, number>();
        const worker = async () => {
          while (next < count) {
            const n = next++;
            // Half look like files (404), half like console pages (index.html): both were cached misses.
            const status = await get(n % 2 ? `/assets/${prefix}${n}-${filler}.js` : `/${prefix}${n}-${filler}`);
            statuses.set(status, (statuses.get(status) ?? 0) + 1);
          }
        };
        await Promise.all(Array.from({ length: 8 }, worker));
        return Object.fromEntries(statuses);
      };
      // Warm up what serving any request allocates once (connections, compiled code).
      expect(await get('/assets/app-1.js')).toBe(200);
      await flood('warm-', 200);
      const before = await settledMemory();
      expect(await flood('', 2000)).toEqual({ 200: 1000, 404: 1000 });
      const grown = (await settledMemory()) - before;
      // Before: every miss kept an 8 KB path (2,000 × 8 KB = 16 MB and more).
      expect(grown).toBeLessThan(6 * MB);
      // The build itself is still served, read once at start.
      expect(await get('/assets/app-1.js')).toBe(200);
    },
  );
});
