import { describe, expect, it } from 'vitest';
import { memoryStore } from '../store/memory/memory-store.js';
import { mapPerson, participates, participations, recordParticipant } from './participants.js';

describe('channel participants', () => {
  it("map by the config's userId, else by the platform's address, matched to a signed-in person's email", async () => {
    const store = memoryStore();
    const byAddress = await mapPerson({ platform: 'slack', id: 'U1', email: 'Ada@Example.com' }, undefined);
    expect(byAddress).toEqual({ userId: 'ada@example.com', keys: ['email:ada@example.com'] });
    await recordParticipant(store, 'slack_c1', byAddress);
    const mapped = await mapPerson({ platform: 'slack', id: 'U2' }, (user) => (user.id === 'U2' ? 'bob' : undefined));
    expect(mapped).toEqual({ userId: 'bob', keys: ['user:bob'] });
    await recordParticipant(store, 'slack_c2', mapped);
    expect(await mapPerson({ platform: 'slack', id: 'U3' }, () => undefined)).toEqual({ keys: [] });

    const ada = { userId: 'okta|123', email: 'ada@example.com' };
    expect(await participates(store, 'slack_c1', ada)).toBe(true);
    expect(await participates(store, 'slack_c2', ada)).toBe(false);
    expect(await participations(store, ada)).toEqual(['slack_c1']);
    expect(await participations(store, { userId: 'bob' })).toEqual(['slack_c2']);
    expect(await participations(store, { userId: null, email: 'ada@example.com' })).toEqual([]);
  });
});
