// The extend verb's running half: reads the store, commits through the runner, starts what comes next.
// What it writes is decided in src/engine/decide/extend.ts (pure).
import type { Caller, ChannelWrite } from '../caller.js';
import type { Engine } from './engine.js';
import type { ActionView } from '../views.js';
import { actionView } from '../views.js';
import { transact } from './transact.js';
import { decideExtend, extendParts } from './decide/extend.js';
import { heldBy } from './delegation.js';

export interface ExtendOptions extends ChannelWrite {
  /** Who extends; omitted = the library acting as the conversation's owner. */
  caller?: Caller;
  /** Through a signed answer link: its recipient extends (as an answer through the link would be recorded). */
  link?: { recipient: string | null };
}

/**
 * Moves a pending action's deadline to `minutes` from now (0: never lapses), by whoever may answer it:
 * the extension decider (src/engine/decide/extend.ts) under the runner. Returns the action as it now is.
 */
export async function extendAction(
  engine: Engine,
  conversationId: string,
  actionId: string,
  minutes: number,
  options: ExtendOptions = {},
): Promise<ActionView> {
  // Whoever may answer may extend: a delegate too (docs/approvals.md), as settleAction finds them.
  const answerer = options.link ? options.link.recipient : options.caller?.userId;
  const standsFor = (await heldBy(engine.store, answerer, engine.now())).map((held) => held.from);
  const done = await transact(
    engine,
    conversationId,
    extendParts,
    (read) => decideExtend(engine, actionId, minutes, { ...options, standsFor }, read),
    { busy: 'The conversation kept changing while the extension was being recorded; send it again.' },
  );
  return actionView(engine, done.value, done.conversation.agent);
}
