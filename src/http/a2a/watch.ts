import type { FollowFlow, Recheck } from '../../engine/follow.js';
import type { HeedHooks } from '../../hooks.js';
import type { EventRecord } from '../../types.js';
import { untilAborted } from '../turn-stream.js';
import { buildTask, taskId, taskNotFound, TERMINAL, type A2aTask, type TaskRef, type TaskState } from './task.js';

/*
 * Following a task through the conversation's event log (docs/a2a.md): the log is shared by every instance,
 * so a task answered or decided anywhere moves on here too. Each event that may change the task's state
 * has it read again from the store.
 */

const MOVES = new Set<EventRecord['type']>([
  'turn.started',
  'turn.paused',
  'turn.completed',
  'turn.cancelled',
  'turn.failed',
  'action.resolved',
]);
const TURN_ENDS = new Set<EventRecord['type']>(['turn.paused', 'turn.completed', 'turn.cancelled', 'turn.failed']);

/** Resolves once no turn runs in the conversation (at once when none does), or the signal aborts. */
export async function untilIdle(host: HeedHooks, conversationId: string, signal: AbortSignal): Promise<void> {
  const conversation = await host.store.getConversation(conversationId);
  if (conversation?.status !== 'running') return;
  let ended!: () => void;
  const done = new Promise<void>((resolve) => (ended = resolve));
  const follow = host.follow(
    conversationId,
    conversation.lastEventSeq,
    (event) => TURN_ENDS.has(event.type) && ended(),
    {},
  );
  try {
    await untilAborted(done, signal);
  } finally {
    follow.close();
  }
}

/** Where a stream stops: a terminal state, or one that waits on the caller (an approval goes on by itself). */
export const streamStops = (state: TaskState) => TERMINAL.has(state) || state === 'TASK_STATE_INPUT_REQUIRED';

/**
 * Sends the task as it is, then a status update at each change of its state (and its reply as an artifact
 * when it completes), until it stops or the signal aborts. Events are read from `after` on. With `recheck`
 * (a subscriber who does not own the task), it throws the task's `not_found` once they may no longer read it.
 */
export async function watchTask(
  host: HeedHooks,
  agent: string,
  ref: TaskRef,
  after: number,
  send: (result: unknown) => void,
  options: { signal: AbortSignal; flow?: FollowFlow; sendTask: boolean; recheck?: Recheck },
): Promise<void> {
  const first = await buildTask(host, agent, ref);
  if (!first) return;
  if (options.sendTask) send({ task: first });
  let last: TaskState = first.status.state;
  if (streamStops(last) && (await notRunning(host, ref))) return finalArtifact(first, send);
  let ended!: () => void;
  let refused!: (error: unknown) => void;
  const done = new Promise<void>((resolve, reject) => ((ended = resolve), (refused = reject)));
  let checking = Promise.resolve();
  const check = () => {
    checking = checking.then(async () => {
      const task = await buildTask(host, agent, ref);
      if (!task || task.status.state === last) return;
      last = task.status.state;
      if (last === 'TASK_STATE_COMPLETED') finalArtifact(task, send);
      send({ statusUpdate: statusUpdate(task) });
      if (streamStops(last)) ended();
    });
    checking.catch(() => ended());
  };
  const follow = host.follow(ref.conversationId, after, (event) => MOVES.has(event.type) && check(), {
    flow: options.flow,
    recheck: options.recheck,
    onRefused: () => refused(taskNotFound(taskId(ref))),
  });
  // A change between the first read and the follower's start is in the log after `after`; check once anyway.
  check();
  try {
    await untilAborted(done, options.signal);
  } finally {
    follow.close();
  }
}

async function notRunning(host: HeedHooks, ref: TaskRef): Promise<boolean> {
  return (await host.store.getConversation(ref.conversationId))?.status !== 'running';
}

function finalArtifact(task: A2aTask, send: (result: unknown) => void): void {
  for (const artifact of task.artifacts) {
    send({ artifactUpdate: { taskId: task.id, contextId: task.contextId, artifact, append: false, lastChunk: true } });
  }
}

export function statusUpdate(task: A2aTask) {
  return { taskId: task.id, contextId: task.contextId, status: task.status, metadata: task.metadata };
}
