import { errorFields } from '../../logger.js';
import { HeedError, must } from '../../errors.js';
import type { ActionRecord, ConversationRecord } from '../../types.js';
import {
  ACTION,
  MODAL_CALLBACK,
  modalAnswers,
  modalErrors,
  outcomeText,
  questionModal,
  type ButtonValue,
  type ModalContext,
} from './blocks.js';
import { holdsRequest, requestSettings } from '../../protocol/request-conversation.js';
import { placeOf, type SlackPlace } from './place.js';
import type { SlackChannel } from './slack-channel.js';

/** What Slack expects back from its endpoint once a request is taken. */
export const ok = () => new Response(null, { status: 200 });

interface InteractionPayload {
  type?: string;
  trigger_id?: string;
  user?: { id?: string; team_id?: string };
  team?: { id?: string };
  channel?: { id?: string };
  container?: { channel_id?: string };
  actions?: { action_id?: string; value?: string }[];
  view?: {
    callback_id?: string;
    private_metadata?: string;
    state?: { values?: Record<string, Record<string, never>> };
  };
}

const json = (body: unknown) =>
  new Response(JSON.stringify(body), { status: 200, headers: { 'content-type': 'application/json' } });

/**
 * A click on a posted request, or a submitted modal: an answer from `slack:<user id>`, settled by the
 * normal order (docs/concepts.md). Slack has its reply at once; the turn the answer continues runs after.
 */
export async function answerInteraction(slack: SlackChannel, raw: Record<string, unknown>): Promise<Response> {
  const payload = raw as InteractionPayload;
  const user = payload.user?.id;
  const team = payload.team?.id ?? payload.user?.team_id ?? '';
  if (!user) return ok();
  if (payload.type === 'block_actions') {
    const clicked = payload.actions?.[0];
    // Opening a link records nothing: the person says Done or Decline once they have been there.
    if (!clicked?.action_id || clicked.action_id === ACTION.open || !clicked.value) return ok();
    const value = readJson<ButtonValue>(clicked.value);
    const channelId = payload.channel?.id ?? payload.container?.channel_id ?? '';
    if (!value) return ok();
    const found = await requestOf(slack, value.c, value.a, team, channelId);
    if (!found) return ok();
    const { conversation, action, place } = found;
    if (clicked.action_id === ACTION.modal) {
      if (action.status !== 'pending') {
        slack.ephemeral(place, user, `This request is already settled. ${outcomeText(action)}`);
        return ok();
      }
      // A trigger lasts 3 s: the modal is opened now, not through the outbox.
      await slack.client.views.open({
        trigger_id: must(payload.trigger_id, 'Slack sends a trigger id with every click.'),
        view: questionModal(action, { c: conversation.id, a: action.id, ch: place.channel }) as never,
      });
      return ok();
    }
    const resolution = clickResolution(clicked.action_id, action, value.o);
    if (!resolution) return ok();
    const refused = await settle(slack, conversation, action, user, resolution);
    if (refused) slack.ephemeral(place, user, refused.text);
    return ok();
  }
  if (payload.type === 'view_submission' && payload.view?.callback_id === MODAL_CALLBACK) {
    const where = readJson<ModalContext>(payload.view.private_metadata ?? '');
    const conversation = where && (await slack.host.store.getConversation(where.c));
    const action = conversation && (await slack.host.store.getAction(conversation.id, where.a));
    if (!conversation || !action || !placeOfConversation(conversation)?.startsWith(`slack:${team}:`)) return ok();
    const answers = modalAnswers(action, payload.view.state?.values ?? {});
    const refused = await settle(slack, conversation, action, user, { type: 'question', answers });
    if (!refused) return ok();
    // The server's sentences under the fields they are about; the modal stays open to answer again.
    return json({ response_action: 'errors', errors: modalErrors(action, refused.fields, refused.text) });
  }
  return ok();
}

/**
 * The conversation and action a button names, when they belong to the Slack channel it was clicked in,
 * and the place of that conversation.
 */
async function requestOf(
  slack: SlackChannel,
  conversationId: string,
  actionId: string,
  team: string,
  channelId: string,
): Promise<{ conversation: ConversationRecord; action: ActionRecord; place: SlackPlace } | undefined> {
  const conversation = await slack.host.store.getConversation(conversationId);
  const channel = conversation && placeOfConversation(conversation);
  if (!conversation || !channel || !`${channel}:`.startsWith(`slack:${team}:${channelId}:`)) return undefined;
  const action = await slack.host.store.getAction(conversationId, actionId);
  return action ? { conversation, action, place: placeOf(channel) } : undefined;
}

function clickResolution(
  actionId: string,
  action: ActionRecord,
  option: number | undefined,
): Record<string, unknown> | undefined {
  switch (actionId) {
    case ACTION.allow:
      return { type: 'approval', decision: 'allow' };
    case ACTION.deny:
      return { type: 'approval', decision: 'deny' };
    case ACTION.skip:
      return { type: 'question', skip: true };
    case ACTION.accept:
      return { type: 'url', decision: 'accept' };
    case ACTION.decline:
      return { type: 'url', decision: 'decline' };
    case ACTION.option: {
      const question = action.request.kind === 'question' ? action.request.questions[0] : undefined;
      const picked = option === undefined ? undefined : question?.options?.[option];
      return question && picked ? { type: 'question', answers: { [question.id]: picked.value } } : undefined;
    }
    default:
      return undefined;
  }
}

/**
 * Settles as `slack:<user>` through the normal order, checked by the config's `access`. Resolves once the
 * answer is recorded (undefined) or with why it was not: for a request already settled, who settled it.
 */
async function settle(
  slack: SlackChannel,
  conversation: ConversationRecord,
  action: ActionRecord,
  user: string,
  resolution: Record<string, unknown>,
): Promise<{ text: string; fields: { field: string; message: string }[] } | undefined> {
  const access = slack.config.access;
  // A request made with POST /api/requests (or MCP) posted here is answered as the Heed person the answerer maps to.
  const caller = holdsRequest(conversation) ? await slack.personFor(user) : slack.callerFor(user);
  if (!caller)
    return {
      text: 'Your Slack account is not linked to a person in Heed, so your answer cannot count here; answer it in Heed.',
      fields: [],
    };
  try {
    await slack.recorded(
      (onRecorded) =>
        slack.host.settle(conversation.id, action.id, resolution, {
          caller,
          fromChannel: { name: 'slack', ...(access ? { may: (target) => access(user, target) } : {}) },
          onRecorded,
        }),
      conversation.channel ? placeOf(conversation.channel) : undefined,
    );
    return undefined;
  } catch (error) {
    if (!HeedError.isInstance(error)) {
      slack.host.logger.error(
        { conversationId: conversation.id, actionId: action.id, ...errorFields(error) },
        'Heed: a Slack answer could not be settled',
      );
      return { text: 'Something went wrong; please try again.', fields: [] };
    }
    if (error.code === 'action_not_pending' || error.code === 'action_expired') {
      const now = await slack.host.store.getAction(conversation.id, action.id);
      return { text: `This request was already settled. ${now ? outcomeText(now) : ''}`.trim(), fields: [] };
    }
    // A request's conversation the person may not see: what they are told is that they may not answer it.
    if (holdsRequest(conversation) && error.code === 'not_found')
      return { text: 'You may not answer this request.', fields: [] };
    const fields = Array.isArray(error.details?.fields)
      ? (error.details.fields as { field: string; message: string }[])
      : [];
    return { text: error.message, fields };
  }
}

function readJson<T>(text: string): T | undefined {
  try {
    return JSON.parse(text) as T;
  } catch {
    // Not JSON: the caller treats it like a body without the field.
    return undefined;
  }
}

/** Where a conversation's cards are in Slack: its thread, or, for a request posted here, the place it was posted to. */
function placeOfConversation(conversation: ConversationRecord): string | undefined {
  return (holdsRequest(conversation) ? requestSettings(conversation).channel : conversation.channel) ?? undefined;
}
