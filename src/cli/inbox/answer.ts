import type { ActionView, HeedClient, ResolutionInput } from '../../client/index.js';

/**
 * Sends an answer and returns the action as stored. It asks for the answer's stream and leaves as soon
 * as the first event arrives: by then the answer is recorded, and the agent's continued turn (which
 * may take a model's while) runs on in the server without holding the terminal.
 */
export async function sendAnswer(
  client: HeedClient,
  action: ActionView,
  resolution: ResolutionInput,
): Promise<ActionView> {
  const controller = new AbortController();
  const stream = client.answerStream(action.conversationId, action.id, resolution, { signal: controller.signal });
  try {
    await stream.next();
  } finally {
    controller.abort();
    await stream.return(undefined).catch(() => undefined); // closing a stream already aborted: nothing left to report
  }
  const stored = (await client.actions(action.conversationId).catch(() => [] as ActionView[])).find(
    (candidate) => candidate.id === action.id,
  );
  return stored ?? { ...action, status: 'resolved' };
}
