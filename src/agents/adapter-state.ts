import { HeedError } from '../errors.js';
import type { MessageRecord } from '../types.js';
import type { HandlerValues } from './handler-types.js';

/*
 * What the framework adapters (heed/langgraph, heed/openai-agents) share: finding Heed's store among a
 * call's inputs, the text of the user's message, and one JSON state per conversation kept in the store's
 * small key/value table.
 */

/** The store a call was handed, else the adapter's own `values`; `label` names the adapter in the error. */
export function valuesFinder(label: string, fallback: HandlerValues | undefined) {
  return (input: { values?: HandlerValues }): HandlerValues => {
    const values = input.values ?? fallback;
    if (!values) {
      throw new HeedError(
        'internal_error',
        `${label} was called without Heed's store: run it as an agent of createHeed, or pass \`values\`.`,
      );
    }
    return values;
  };
}

/** The text parts of a message, one per line. */
export function messageText(message: MessageRecord): string {
  return message.parts.flatMap((part) => (part.type === 'text' ? [part.text] : [])).join('\n');
}

/** One JSON state per conversation under `scope(conversationId)`; `{}` before the first write (every field of `S` is optional). */
export function conversationState<S extends object>(scope: (conversationId: string) => string) {
  return {
    async read(values: HandlerValues, conversationId: string): Promise<S> {
      const [row] = await values.listValues(scope(conversationId));
      return row ? (JSON.parse(row.value) as S) : ({} as S);
    },
    async write(values: HandlerValues, conversationId: string, state: S): Promise<void> {
      await values.putValues([{ scope: scope(conversationId), key: 'state', value: JSON.stringify(state) }]);
    },
  };
}
