import { z } from 'zod';
import { DeliveryDropped } from '../../channels/channel.js';
import type { Caller } from '../../caller.js';
import { mayWriteAsOwner } from '../../engine/access.js';
import { HeedError } from '../../errors.js';
import type { HeedHooks } from '../../hooks.js';
import { newId } from '../../ids.js';
import { checkCallbackUrl } from '../../notify/callbacks.js';
import type { A2aPushSender } from '../../notify/a2a-push.js';
import { a2aPushConfigs, type A2aPushConfig } from '../../protocol/request-conversation.js';
import type { DeliveryRecord } from '../../store/store.js';
import { A2A_CODES, RpcError } from './json-rpc.js';
import type { A2aRequestContext } from './send.js';
import { buildTask, parseTaskId, readTask, taskId, taskNotFound, type A2aTask } from './task.js';
import { statusUpdate } from './watch.js';

/*
 * A2A push-notification configs (docs/a2a.md): kept in the task's conversation (so any instance sends them),
 * and delivered from the outbox. A config's URL must be one the operator allows for callbacks
 * (`notify.callbackHosts`, with `notify.callbackSecret` to sign): a caller cannot make the server post to
 * an internal address the operator did not choose. Each POST is the task's status update, with the config's
 * token in `X-A2A-Notification-Token`, its credentials in `Authorization`, and a Standard Webhooks signature.
 */

/** Push configs one conversation keeps, across its tasks. */
export const MAX_PUSH_CONFIGS = 10;

export const pushConfigParams = z.looseObject({
  id: z.string().max(200).optional(),
  taskId: z.string().min(1).max(400),
  url: z.string().min(1).max(2000),
  token: z.string().max(1000).optional(),
  authentication: z.looseObject({ scheme: z.string().min(1).max(100), credentials: z.string().max(4000) }).optional(),
});
export const pushConfigRef = z.looseObject({ taskId: z.string().min(1).max(400), id: z.string().max(200).optional() });

/** A config as A2A shows it: its token and credentials stay on the server (the receiver's secrets, not the caller's to read back). */
function shown(config: A2aPushConfig, conversationId: string) {
  return {
    id: config.id,
    taskId: taskId({ conversationId, messageId: config.task }),
    url: config.url,
    ...(config.authentication ? { authentication: { scheme: config.authentication.scheme } } : {}),
  };
}

/**
 * Checks that the caller may manage the task's push configs: whoever may send to its conversation (the
 * engine's `mayWriteAsOwner`, as sending asks). A reader (a named approver, a delegate) gets the same not-found as
 * a stranger: configs post the task's states to a URL of their choosing, which reading does not allow.
 */
async function manageTask(context: A2aRequestContext, id: string) {
  const { heed, host, caller, agent } = context;
  await readTask(heed, host, caller, agent, id);
  const ref = parseTaskId(id)!;
  const conversation = await host.store.getConversation(ref.conversationId);
  if (!conversation || !mayWriteAsOwner(caller, conversation)) throw taskNotFound(id);
  return { ref, conversation };
}

/** True while the config's maker may still send to the conversation (one made before makers were kept: its owner's). */
export function makerMayAccess(config: A2aPushConfig, conversation: Parameters<typeof mayWriteAsOwner>[1]): boolean {
  const maker: Caller = { userId: config.maker === undefined ? conversation.ownerId : config.maker };
  return mayWriteAsOwner(maker, conversation);
}

/** Refuses a push URL the operator does not allow for callbacks, as a request's callbackUrl is refused. */
export function checkPushUrl(context: A2aRequestContext, url: string): void {
  try {
    checkCallbackUrl(url, context.host.notifier.config);
  } catch (thrown) {
    if (!HeedError.isInstance(thrown)) throw thrown;
    throw new RpcError(
      A2A_CODES.invalidParams,
      new HeedError('callback_not_allowed', thrown.message.replace('callbackUrl', 'The push URL'), {
        details: { field: 'params.url' },
      }),
    );
  }
}

/** Stores a config for a task the caller may send to (the URL checked first); returns it as A2A shows it. */
export async function createPushConfig(context: A2aRequestContext, input: z.output<typeof pushConfigParams>) {
  const { host, caller } = context;
  const { ref } = await manageTask(context, input.taskId);
  checkPushUrl(context, input.url);
  const config: A2aPushConfig = {
    id: input.id || newId('msg'),
    task: ref.messageId,
    url: input.url,
    ...(input.token ? { token: input.token } : {}),
    ...(input.authentication ? { authentication: input.authentication } : {}),
    maker: caller.userId,
  };
  await host.editA2aPush(ref.conversationId, (configs) => {
    const others = configs.filter((entry) => entry.id !== config.id);
    // Each config is one more POST per state change, kept with the conversation: a caller gets a few, not many.
    if (others.length >= MAX_PUSH_CONFIGS) {
      throw new RpcError(
        A2A_CODES.invalidParams,
        new HeedError(
          'invalid_request',
          `A conversation keeps at most ${MAX_PUSH_CONFIGS} A2A push configs; delete one (DeleteTaskPushNotificationConfig) before adding another.`,
          { details: { field: 'params', limit: String(MAX_PUSH_CONFIGS) } },
        ),
      );
    }
    return [...others, config];
  });
  return shown(config, ref.conversationId);
}

/** The task's configs (one when `id` is given), for a caller who may send to the task. */
export async function listPushConfigs(context: A2aRequestContext, input: z.output<typeof pushConfigRef>) {
  const { ref, conversation } = await manageTask(context, input.taskId);
  const configs = a2aPushConfigs(conversation).filter((entry) => entry.task === ref.messageId);
  return configs
    .filter((entry) => input.id === undefined || entry.id === input.id)
    .map((c) => shown(c, ref.conversationId));
}

export async function deletePushConfig(context: A2aRequestContext, input: z.output<typeof pushConfigRef>) {
  const found = await listPushConfigs(context, input);
  if (found.length === 0) throw pushConfigNotFound();
  const ref = parseTaskId(input.taskId)!;
  await context.host.editA2aPush(ref.conversationId, (configs) => configs.filter((entry) => entry.id !== input.id));
  // The state its deliveries took (takeState) goes with it: a config made again with this id starts afresh.
  await context.host.values.deleteValues(sentScope(ref.conversationId, input.id ?? ''));
}

export const pushConfigNotFound = () =>
  new HeedError('not_found', 'That task has no push notification config with this id.');

/**
 * The sender the outbox calls (src/notify/a2a-push.ts): builds the task now, skips it when another delivery
 * of the config already took this state (on any instance), and posts the status update.
 */
export function pushSender(host: HeedHooks): A2aPushSender {
  return async (delivery: DeliveryRecord, { timeoutMs, signal }) => {
    const conversation = await host.store.getConversation(delivery.conversationId);
    const config = conversation && a2aPushConfigs(conversation).find((entry) => entry.id === delivery.actionId);
    if (!conversation || !config) throw new DeliveryDropped('the push config is gone');
    if (!makerMayAccess(config, conversation))
      throw new DeliveryDropped('who made the push config may no longer send to the task');
    const task = await takeState(host, delivery, config, conversation.agent);
    const headers: Record<string, string> = { 'content-type': 'application/json', 'user-agent': 'heed-a2a' };
    if (config.token) headers['x-a2a-notification-token'] = config.token;
    if (config.authentication)
      headers.authorization = `${config.authentication.scheme} ${config.authentication.credentials}`;
    const body = JSON.stringify({ statusUpdate: statusUpdate(task) });
    const secret = host.notifier.config.callbackSecret;
    if (secret) Object.assign(headers, await signed(secret, delivery.id, body));
    let response: Response;
    try {
      response = await fetch(config.url, {
        method: 'POST',
        headers,
        body,
        redirect: 'manual',
        signal: AbortSignal.any([AbortSignal.timeout(timeoutMs), signal]),
      });
    } catch (error) {
      throw new Error(`could not connect (${(error as Error).name})`);
    }
    await response.arrayBuffer().catch(() => undefined);
    if (response.status < 200 || response.status > 299) throw new Error(`HTTP ${response.status}`);
    return { state: task.status.state };
  };
}

/** Where the store keeps a config's last state taken (a config id is the caller's, unique in its conversation only). */
const sentScope = (conversationId: string, configId: string) => `a2a-push:${conversationId}:${configId}`;

/** What the store keeps per push config: the last state a delivery took to send, and which delivery. */
interface SentState {
  state: string;
  delivery: string;
}

/**
 * Builds the task as it stands and takes its state for `delivery` to send, unless another delivery of the
 * config took that state already (and sent it, or is sending it and retries): a compare-and-set of one
 * stored value (`Store.swapValue`), so of two instances whose outboxes each hold a delivery of one config,
 * one sends the state and the other drops. A retry of the delivery that took a state takes it again.
 */
async function takeState(
  host: HeedHooks,
  delivery: DeliveryRecord,
  config: A2aPushConfig,
  agent: string,
): Promise<A2aTask> {
  const scope = sentScope(delivery.conversationId, config.id);
  for (let tries = 0; tries < 5; tries++) {
    // Read before the task is built: a state taken since then (maybe a later one) makes the swap fail.
    const row = (await host.values.listValues(scope)).find((entry) => entry.key === '');
    const task = await buildTask(host, agent, { conversationId: delivery.conversationId, messageId: config.task });
    if (!task) throw new DeliveryDropped('the task is gone');
    const state = task.status.state;
    const sent = row ? (JSON.parse(row.value) as SentState) : undefined;
    if (sent?.state === state) {
      if (sent.delivery === delivery.id) return task;
      throw new DeliveryDropped(`the task is still ${state}`);
    }
    const next = JSON.stringify({ state, delivery: delivery.id } satisfies SentState);
    if (await host.values.swapValue(scope, '', row?.value ?? null, next)) return task;
  }
  throw new Error('other deliveries of the push config kept taking its state');
}

/** Standard Webhooks headers for the body, as webhooks and callbacks are signed. */
async function signed(secret: string, id: string, body: string): Promise<Record<string, string>> {
  const { Webhook } = await import('standardwebhooks');
  const at = new Date();
  return {
    'webhook-id': id,
    'webhook-timestamp': String(Math.floor(at.getTime() / 1000)),
    'webhook-signature': new Webhook(secret).sign(id, at, body),
  };
}
