/**
 * Shared by the queued-message tests that run `heed serve` as processes with test/fixtures/queue.config.ts:
 * what its model and tool did (calls.log), and waiting on a conversation over HTTP.
 */
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { call } from './serve-process.js';

export interface Logged {
  what: 'model' | 'note';
  text: string;
  pid: number;
}

/** Every model call and note run so far, in order. */
export function logged(dir: string): Logged[] {
  const file = join(dir, 'calls.log');
  if (!existsSync(file)) return [];
  return readFileSync(file, 'utf8')
    .split('\n')
    .filter(Boolean)
    .map((line) => {
      const match = /^(model|note) (".*") (\d+)$/.exec(line)!;
      return { what: match[1] as Logged['what'], text: JSON.parse(match[2]) as string, pid: Number(match[3]) };
    });
}

/** Lets the model's `hold:<key>` call go on. */
export function release(dir: string, key: string): void {
  writeFileSync(join(dir, `release.${key}`), '');
}

/** Polls `GET /api/conversations/:id` until `done` says so (10 s at most). */
// eslint-disable-next-line @typescript-eslint/no-explicit-any
export async function waitForConversation(
  url: string,
  id: string,
  what: string,
  done: (snapshot: any) => boolean,
  output = () => '',
): Promise<any> {
  for (let waited = 0; ; waited += 50) {
    const read = await call(url, 'GET', `/api/conversations/${id}`);
    if (read.status === 200 && done(read.body)) return read.body;
    if (waited > 15_000)
      throw new Error(`conversation ${id}: still waiting for ${what}: ${JSON.stringify(read.body)}\n${output()}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

/** No turn runs and nothing waits in the queue. */
export const allRun = (snapshot: { runtime: { status: string }; queuedMessages?: unknown[] }) =>
  snapshot.runtime.status !== 'running' && !snapshot.queuedMessages;
