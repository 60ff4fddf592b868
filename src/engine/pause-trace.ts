import { formatTraceparent, parseTraceparent, type SpanContext } from '../telemetry/context.js';
import type { Store } from '../store/store.js';

/*
 * A pause's span, kept in the store while traces are on, so that whatever comes of its actions later (an
 * answer hours after, on another instance; the webhook that announces it) joins the same trace. One value
 * per action under the conversation's scope: its `traceparent`. Nothing is written while traces are off.
 */

/** The scope of a conversation's pause spans among the store's values (removed with the conversation). */
export function pauseTraceScope(conversationId: string): string {
  return `heed.trace:${conversationId}`;
}

/** Keeps the pause's span for each of its actions. */
export async function keepPauseSpan(
  store: Pick<Store, 'putValues'>,
  conversationId: string,
  actionIds: string[],
  span: SpanContext,
): Promise<void> {
  const value = formatTraceparent(span);
  await store.putValues(actionIds.map((key) => ({ scope: pauseTraceScope(conversationId), key, value })));
}

/** The span of the pause that raised an action, when one was kept. */
export async function pauseSpanOf(
  store: Pick<Store, 'listValues'>,
  conversationId: string,
  actionId: string,
): Promise<SpanContext | undefined> {
  const values = await store.listValues(pauseTraceScope(conversationId));
  return parseTraceparent(values.find((entry) => entry.key === actionId)?.value);
}
