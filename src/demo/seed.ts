import { HeedError } from '../errors.js';
import type { Heed } from '../heed.js';

/** One conversation the demo starts with: who started it, with which agent, and what they said. */
interface Seed {
  id: string;
  agent: string;
  owner: string;
  /** Sent in order; an intake question that comes first is answered with `intake`. */
  messages: string[];
  intake?: Record<string, string>;
}

/**
 * What waits when the demo first starts: ada's refund (one approval), grace's refund that ada and grace
 * must both allow (four eyes), ada's trip questions and grace's helpdesk intake. Fixed ids make it once
 * only: a database that already has them (a restart, or another instance that seeded first) is left alone.
 */
const SEEDS: Seed[] = [
  {
    id: 'demo-helpdesk-ada',
    agent: 'helpdesk',
    owner: 'ada',
    messages: ['hi', 'refund order 42 for $30'],
    intake: { topic: 'billing', email: 'ada@example.com' },
  },
  { id: 'demo-finance-grace', agent: 'finance', owner: 'grace', messages: ['refund order 1042 for $80'] },
  { id: 'demo-trip-ada', agent: 'trip-planner', owner: 'ada', messages: ['plan a weekend away'] },
  { id: 'demo-helpdesk-grace', agent: 'helpdesk', owner: 'grace', messages: ['hi'] },
];

/**
 * Starts the demo's waiting requests, once per database. Resolves with how many conversations it
 * started (0 when they were there already).
 */
export async function seedDemo(heed: Heed): Promise<number> {
  let started = 0;
  for (const seed of SEEDS) {
    const caller = { userId: seed.owner };
    try {
      await heed.createConversation({ agent: seed.agent, id: seed.id, caller });
    } catch (thrown) {
      // Seeded before (by this database's first start, or by another instance at the same moment).
      if (HeedError.isInstance(thrown) && thrown.code === 'invalid_request' && thrown.details?.reason === 'exists')
        continue;
      throw thrown;
    }
    started++;
    const conversation = heed.conversation(seed.id);
    for (const message of seed.messages) {
      const turn = await conversation.send(message, { caller });
      const intake = turn.pendingActions?.find((action) => action.kind === 'question' && action.toolName === 'intake');
      if (intake && seed.intake && message !== seed.messages.at(-1)) {
        await conversation.resolve(intake.id, { type: 'question', answers: seed.intake }, { caller });
      }
    }
  }
  return started;
}
