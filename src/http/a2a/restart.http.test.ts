/**
 * A2A tasks live in the store, not in a process: a server started again on the same SQLite file answers
 * GetTask and SubscribeToTask for a task another process paused, and the task moves on there.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { a2aClient, send, statusData, TaskState, textPart, userMessage } from '../../../test/a2a-fixtures.js';
import { startServer } from '../../../test/http-fixtures.js';
import { sqliteStore } from '../../store/sqlite/sqlite-store.js';

const dir = mkdtempSync(join(tmpdir(), 'heed-a2a-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('A2A tasks across a restart', () => {
  it('a task paused by one server is read, followed and completed on the next one', async () => {
    const path = join(dir, 'heed.db');
    const first = await startServer({ store: sqliteStore({ path }) });
    const paused = await send(await a2aClient(first, { token: 'ada' }), userMessage([textPart('refund 3')]));
    expect(paused.status?.state).toBe(TaskState.TASK_STATE_AUTH_REQUIRED);
    await first.close();

    const second = await startServer({ store: sqliteStore({ path }) });
    try {
      const client = await a2aClient(second, { token: 'ada' });
      const read = await client.getTask({ tenant: '', id: paused.id, historyLength: undefined });
      expect(read.status?.state).toBe(TaskState.TASK_STATE_AUTH_REQUIRED);
      const states: Array<TaskState | undefined> = [];
      let allowed = false;
      for await (const event of client.resubscribeTask({ tenant: '', id: paused.id })) {
        const payload = event.payload;
        const state =
          payload?.$case === 'task' || payload?.$case === 'statusUpdate' ? payload.value.status?.state : undefined;
        states.push(state);
        if (!allowed && state === TaskState.TASK_STATE_AUTH_REQUIRED) {
          allowed = true;
          const [pending] = statusData(read);
          const answered = await second.api(
            'POST',
            `/api/conversations/${paused.contextId}/actions/${String(pending.actionId)}`,
            { token: 'ada', body: { resolution: { type: 'approval', decision: 'allow' } } },
          );
          expect(answered.status).toBe(200);
        }
      }
      expect(states.filter((state) => state !== undefined).at(-1)).toBe(TaskState.TASK_STATE_COMPLETED);
      expect(second.ran.get('issue_refund')).toBe(1);
    } finally {
      await second.close();
    }
  });
});
