import { earliestDue, type ChildRuns, type Engine } from './engine.js';
import { newId } from '../ids.js';
import { newEvent } from '../protocol/events.js';
import type { ConversationRecord } from '../types.js';
import { childRecheckAt, openChildCalls, parentOf } from './children.js';
import { transact } from './transact.js';
import { runTurnUnderLease } from './start.js';
import type { TurnResult } from './turn/run-turn.js';

/*
 * A parent paused on its children goes on once none of them is open any more. Whoever ends a child (its
 * turn completes or fails, it is cancelled) tries to claim the parent's continuation with compare-and-set,
 * so exactly one continuation runs, on whichever instance; the parent's turn then reads each child's reply
 * as the result of its call. A process that dies between the child's end and that claim leaves the parent
 * paused with `actionDueAt` set: the sweep comes back to it (`sweepParent`) and claims it then.
 */

/**
 * Claims and runs the continuation of a parent whose children have all ended; nothing when it is not paused,
 * still waits on a child or on a person, or someone else claimed it first. Resolves once the parent's turn ended.
 */
export async function continueParent(engine: Engine, parentId: string): Promise<TurnResult | undefined> {
  const claim = await claimParent(engine, parentId);
  if (!claim) return undefined;
  return runTurnUnderLease(engine, claim.conversation, claim.leaseOwner, {
    trigger: 'child',
    caller: null,
    interactive: true,
  });
}

/** The children of a paused parent that are still open (running or paused); undefined when it waits on none. */
async function openChildren(engine: Engine, parent: ConversationRecord): Promise<ConversationRecord[] | undefined> {
  const agent = engine.agents.get(parent.agent);
  // Most agents call none: their pauses cost no read here.
  if (!agent?.agents?.length) return undefined;
  const messages = await engine.store.listMessages(parent.id);
  const calls = openChildCalls(agent, parent, messages);
  if (calls.length === 0) return undefined;
  const children = await Promise.all(calls.map((call) => engine.store.getConversation(call.conversationId)));
  return children.filter((child): child is ConversationRecord => child !== undefined && child.status !== 'idle');
}

async function claimParent(
  engine: Engine,
  parentId: string,
): Promise<{ conversation: ConversationRecord; leaseOwner: string } | undefined> {
  const parent = await engine.store.getConversation(parentId);
  if (!parent || parent.status !== 'requires_action') return undefined;
  const open = await openChildren(engine, parent);
  if (!open || open.length > 0) return undefined;
  const leaseOwner = newId('lease');
  const done = await transact(engine, parentId, { actions: true }, (read) => {
    const { conversation } = read;
    // Decided on the version the children were read against: any write since is looked at again by its writer.
    if (conversation.version !== parent.version || conversation.status !== 'requires_action')
      return { type: 'none', value: false };
    if (read.actions.some((action) => action.status === 'pending')) return { type: 'none', value: false };
    const at = engine.now();
    return {
      type: 'write',
      write: {
        set: {
          status: 'running',
          leaseOwner,
          leaseExpiresAt: engine.leaseUntil(),
          actionDueAt: null,
          updatedAt: at,
        },
        events: [newEvent('turn.started', at, { trigger: 'child' })],
      },
      value: true,
    };
  });
  if (!done.committed || !done.value) return undefined;
  return { conversation: done.conversation, leaseOwner };
}

/**
 * After a child's turn: its new pause is told in the parent's log (`child.paused`), its end continues the
 * parent. Resolves once the parent's continuation is claimed (its turn runs on, tracked by the engine).
 */
export async function afterChildTurn(
  engine: Engine,
  child: ConversationRecord,
  status: TurnResult['status'],
): Promise<void> {
  const link = parentOf(child);
  if (!link) return;
  if (status === 'requires_action') {
    const actionIds = (await engine.store.listActions(child.id))
      .filter((action) => action.status === 'pending')
      .map((action) => action.id);
    // Only a parent already paused on it: a parent still running this child's first turn writes it itself.
    await transact(engine, link.conversationId, {}, (read) =>
      read.conversation.status !== 'requires_action'
        ? { type: 'none', value: undefined }
        : {
            type: 'write',
            write: {
              events: [
                newEvent('child.paused', engine.now(), {
                  toolCallId: link.toolCallId,
                  conversationId: child.id,
                  agent: child.agent,
                  actionIds,
                }),
              ],
            },
            value: undefined,
          },
    );
    return;
  }
  startParent(engine, link.conversationId);
}

/** Claims the parent's continuation and leaves its turn running (tracked); failures are logged. */
export function startParent(engine: Engine, parentId: string): void {
  void engine
    .track(continueParent(engine, parentId))
    .catch((thrown: unknown) =>
      engine.logger.error(
        { conversationId: parentId, error: String(thrown) },
        'Heed: a parent could not go on after its child',
      ),
    );
}

/**
 * The sweep's look at a paused conversation that waits on children: claims its continuation when they have
 * all ended, else looks again later. Undefined when it waits on no child (the lapse rules apply as usual).
 */
export async function sweepParent(
  engine: Engine,
  conversation: ConversationRecord,
): Promise<{ run?: Promise<TurnResult | undefined> } | undefined> {
  const open = await openChildren(engine, conversation);
  if (!open) return undefined;
  if (open.length === 0) return { run: continueParent(engine, conversation.id) };
  // A lost race is the next sweep's: whoever wrote meanwhile set its own due time. Its own requests' lapses,
  // escalations and reminders keep theirs when they come first.
  const wrote = await transact(engine, conversation.id, { actions: true }, (read) => {
    if (read.conversation.version !== conversation.version) return { type: 'none', value: undefined };
    const own = earliestDue(read.actions);
    const recheck = childRecheckAt(engine);
    return {
      type: 'write',
      write: { set: { actionDueAt: own !== null && own < recheck ? own : recheck } },
      value: undefined,
    };
  });
  // A child that ended between the look above and this write tried to claim the parent on the version before
  // it and lost: as claimParent expects of any writer in between, this one looks again.
  if (wrote.committed) {
    const still = await openChildren(engine, wrote.conversation);
    if (still?.length === 0) return { run: continueParent(engine, conversation.id) };
  }
  return {};
}

/** The engine's part for agents that call agents (EngineParts.children). */
export function childRuns(engine: Engine): ChildRuns {
  return {
    runChild: (conversation, leaseOwner, messages) =>
      runTurnUnderLease(engine, conversation, leaseOwner, {
        trigger: 'message',
        caller: null,
        interactive: true,
        askIntake: true,
        messages,
        actions: [],
      }),
    continueParent: (parentId) => continueParent(engine, parentId),
    afterChildTurn: (child, status) => afterChildTurn(engine, child, status),
  };
}
