import type { Caller } from '../caller.js';
import type { Engine } from './engine.js';
import type { ActionRecord, ConversationRecord, MessageRecord, RememberedTool } from '../types.js';
import { runTurn, type TurnResult } from './turn/run-turn.js';
import { Turn } from './turn/turn.js';

/**
 * Runs the turn of a conversation whose claim was just taken (status `running`, lease `leaseOwner`),
 * rebuilding it from the stored messages. Tracked, so `close()` can wait for it.
 */
export function runTurnUnderLease(
  engine: Engine,
  conversation: ConversationRecord,
  leaseOwner: string,
  options: {
    caller: Caller | null;
    interactive: boolean;
    askIntake?: boolean;
    messages?: MessageRecord[];
    actions?: ActionRecord[];
    remembered?: RememberedTool[];
  },
): Promise<TurnResult> {
  return engine.track(
    (async () => {
      const messages = options.messages ?? (await engine.store.listMessages(conversation.id));
      const agent = engine.agents.get(conversation.agent);
      const turn = new Turn(
        engine,
        agent ?? { name: conversation.agent, model: missingModel(conversation.agent) },
        conversation,
        messages,
        options.caller,
        options.interactive,
        leaseOwner,
        options.actions,
        options.remembered,
      );
      const result = await runTurn(turn, { askIntake: options.askIntake ?? false });
      // The message queued behind this turn: its turn was claimed by the write that ended this one.
      const next = turn.next;
      if (next) {
        void runTurnUnderLease(engine, turn.conversation, next.leaseOwner, { caller: next.caller, interactive: true, askIntake: true, messages: next.messages, actions: [] }).catch(
          () => undefined,
        );
      }
      return result;
    })(),
  );
}

/** An agent removed from the config since the pause: its turn fails with a clear error. */
function missingModel(name: string) {
  const fail = () => Promise.reject(new Error(`The agent "${name}" is no longer configured, so the turn cannot go on.`));
  return {
    specificationVersion: 'v3' as const,
    provider: 'heed',
    modelId: 'missing',
    supportedUrls: {},
    doGenerate: fail,
    doStream: fail,
  };
}
