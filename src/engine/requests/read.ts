import type { Caller } from '../../caller.js';
import { HeedError } from '../../errors.js';
import { holdsRequest } from '../../protocol/request-conversation.js';
import type { ActionRecord } from '../../types.js';
import type { Engine } from '../engine.js';
import { mayRead, mayReadWithoutHook } from '../access.js';
import { heldBy } from '../delegation.js';

/** The longest a wait may last, in seconds: longer ones are refused rather than held. */
export const MAX_WAIT_SECONDS = 60;

/** The one answer for a request the caller may not see, whether or not it exists, so ids do not leak. */
function requestNotFound(id: string): HeedError {
  return new HeedError('not_found', 'There is no request with that id.', { details: { requestId: id } });
}

/**
 * A request made with `POST /api/requests`, for whoever may read its conversation (src/engine/access.ts:
 * its caller, its assignees, their delegates while it waits, admins, `authorizeResolve`); anyone else gets
 * the same 404 as an id that names nothing.
 */
export async function readRequest(engine: Engine, id: string, caller: Caller | undefined): Promise<ActionRecord> {
  const found = await engine.store.findAction(id);
  const conversation = found && (await engine.store.getConversation(found.conversationId));
  if (!found || !conversation || !holdsRequest(conversation)) throw requestNotFound(id);
  if (mayReadWithoutHook(caller, conversation, [found], [])) return found;
  const standsFor = (await heldBy(engine.store, caller?.userId, engine.now())).map((held) => held.from);
  if (!(await mayRead(engine, caller, conversation, [found], standsFor))) throw requestNotFound(id);
  return found;
}

/**
 * Waits until the request is settled (answered, lapsed or withdrawn) or `timeoutMs` passes, whichever is
 * first; `settled` says which. Holds no more than its listeners and one timer: it wakes on the engine's
 * events for the conversation (which, on PostgreSQL, include other instances' commits) and reads the store.
 */
export async function waitForRequest(
  engine: Engine,
  id: string,
  caller: Caller | undefined,
  options: { timeoutMs: number; signal?: AbortSignal },
): Promise<{ settled: boolean; action: ActionRecord }> {
  const first = await readRequest(engine, id, caller);
  if (first.status !== 'pending' || options.timeoutMs <= 0 || options.signal?.aborted)
    return { settled: first.status !== 'pending', action: first };
  const conversationId = first.conversationId;
  return new Promise((resolve, reject) => {
    let latest = first;
    let reading = false;
    let again = false;
    let done = false;
    const finish = (error?: unknown) => {
      if (done) return;
      done = true;
      clearTimeout(timer);
      offEvents();
      offPoke();
      offAny();
      options.signal?.removeEventListener('abort', onAbort);
      if (error !== undefined) reject(error);
      else resolve({ settled: latest.status !== 'pending', action: latest });
    };
    const look = () => {
      if (done) return;
      if (reading) {
        again = true;
        return;
      }
      reading = true;
      readRequest(engine, id, caller).then(
        (action) => {
          reading = false;
          latest = action;
          if (action.status !== 'pending') return finish();
          if (again) {
            again = false;
            look();
          }
        },
        (error: unknown) => {
          reading = false;
          finish(error);
        },
      );
    };
    const onAbort = () => finish();
    const timer = setTimeout(() => finish(), options.timeoutMs);
    const offEvents = engine.bus.on(conversationId, look);
    const offPoke = engine.bus.onPoke(conversationId, look);
    // Notices from other instances may have been missed (undefined): look again then too.
    const offAny = engine.bus.onAny((touched) => {
      if (touched === undefined) look();
    });
    options.signal?.addEventListener('abort', onAbort, { once: true });
    // Settled between the first read and the listeners: this read sees it.
    look();
  });
}
