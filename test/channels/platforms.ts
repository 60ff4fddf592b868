/**
 * The Chat SDK platforms as the crash and multi-instance tests drive them: for each one a fake of its API
 * (test/channels/fake-api.ts), its `channels` entry, the webhooks a person's mention and approval make
 * (signed as the platform signs them, at the moment they are sent), and what the fake saw posted.
 * A webhook is built once and can be sent again as is: the platform re-delivering what it thinks was lost.
 */
import { createHmac, generateKeyPairSync, sign } from 'node:crypto';
import { SignJWT, exportJWK } from 'jose';
import { fakeApi, type ApiCall, type FakeApi } from './fake-api.js';

export type PlatformName = 'telegram' | 'github' | 'linear' | 'discord' | 'teams' | 'gchat';

/** A request to Heed's endpoint; `headers` is called at each sending (signatures carry the time). */
export interface Webhook {
  headers: () => Record<string, string>;
  body: string;
}

export interface PlatformFake {
  name: PlatformName;
  api: FakeApi;
  /**
   * The `channels.<name>` entry, without `agent`. A function in it (Teams' and Google Chat's `token`) is
   * called without arguments for the value it gives when the entry is sent as JSON to a `heed serve` process.
   */
  config: Record<string, unknown>;
  /** Ada mentions the bot: "refund order 42". */
  mention(): Webhook;
  /** Bob allows the posted request (a button, or a `/approve` comment). */
  approve(request: ApiCall): Webhook;
  /** The approval requests the fake accepted. */
  requests(): ApiCall[];
  /** The posts the fake accepted that read `text`. */
  posted(text: string): ApiCall[];
  /** The edits of posted messages the fake accepted, as the text they show. */
  edits(): string[];
  close(): Promise<void>;
}

/** POSTs a webhook to a Heed's endpoint for the platform. */
export function deliver(url: string, name: PlatformName, webhook: Webhook): Promise<Response> {
  return fetch(`${url}/api/channels/${name}/events`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...webhook.headers() },
    body: webhook.body,
  });
}

const json = (value: unknown): Webhook['body'] => JSON.stringify(value);
const shown = (value: unknown) => JSON.stringify(value ?? '').replace(/\\\\(\S)/g, '$1');

export function platformFake(name: PlatformName): Promise<PlatformFake> {
  return { telegram, github, linear, discord, teams, gchat }[name]();
}

async function telegram(): Promise<PlatformFake> {
  const secretToken = 'telegram-secret-for-tests';
  const chat = { id: -100123, type: 'supergroup', title: 'Ops' };
  const bot = { id: 999, is_bot: true, first_name: 'Heed', username: 'heedbot' };
  let nextMessageId = 500;
  const api = await fakeApi((call) => {
    const method = call.path.split('/').at(-1);
    if (method === 'getMe') return { body: { ok: true, result: bot } };
    if (method === 'answerCallbackQuery') return { body: { ok: true, result: true } };
    if (method === 'sendMessage' || method === 'sendRichMessage' || method === 'editMessageText')
      return {
        body: {
          ok: true,
          result: {
            message_id: method === 'editMessageText' ? call.body.message_id : nextMessageId++,
            chat,
            from: bot,
            date: 1_700_000_000,
            text: call.body.text,
          },
        },
      };
    return undefined;
  });
  const calls = (method: string) => api.calls.filter((call) => call.path.endsWith(`/${method}`));
  /** What a posted or edited message reads, without MarkdownV2's escapes. */
  const text = (call: ApiCall) =>
    String(call.body.text ?? call.body.rich_message?.markdown ?? '').replace(/\\(\S)/g, '$1');
  const posts = () => [...calls('sendMessage'), ...calls('sendRichMessage')];
  const headers = () => ({ 'x-telegram-bot-api-secret-token': secretToken });
  return {
    name: 'telegram',
    api,
    config: { botToken: '123:abc', secretToken, apiUrl: api.url },
    mention: () => ({
      headers,
      body: json({
        update_id: 1,
        message: {
          message_id: 100,
          from: { id: 111, is_bot: false, first_name: 'Ada', username: 'ada' },
          chat,
          date: 1_700_000_000,
          text: '@heedbot refund order 42',
          entities: [{ type: 'mention', offset: 0, length: 8 }],
        },
      }),
    }),
    approve(request) {
      const buttons = (request.body.reply_markup?.inline_keyboard ?? []).flat() as {
        text: string;
        callback_data: string;
      }[];
      const allow = buttons.find((button) => button.text === 'Allow')!;
      return {
        headers,
        body: json({
          update_id: 2,
          callback_query: {
            id: 'cb2',
            from: { id: 222, is_bot: false, first_name: 'Bob', username: 'bob' },
            chat_instance: 'ci',
            data: allow.callback_data,
            message: { message_id: request.answer.result.message_id, chat, from: bot, date: 1_700_000_000, text: 'x' },
          },
        }),
      };
    },
    requests: () => posts().filter((call) => (call.body.reply_markup?.inline_keyboard?.length ?? 0) > 0),
    posted: (wanted) => posts().filter((call) => text(call) === wanted),
    edits: () => calls('editMessageText').map(text),
    close: () => api.close(),
  };
}

async function github(): Promise<PlatformFake> {
  const webhookSecret = 'github-webhook-secret-for-tests';
  const bot = { id: 999, login: 'heed-bot', type: 'Bot' };
  const repository = { id: 1, name: 'shop', full_name: 'acme/shop', owner: { id: 5, login: 'acme' } };
  let nextCommentId = 9000;
  const api = await fakeApi((call) => {
    const comment = (id: number) => ({
      id,
      body: call.body?.body,
      user: bot,
      created_at: '2026-12-02T10:00:00Z',
      updated_at: '2026-12-02T10:00:00Z',
      html_url: `https://github.com/acme/shop/issues/7#issuecomment-${id}`,
    });
    if (call.method === 'GET' && call.path === '/user') return { body: bot };
    if (call.method === 'POST' && /^\/repos\/acme\/shop\/issues\/\d+\/comments$/.test(call.path))
      return { status: 201, body: comment(nextCommentId++) };
    const edited = /^\/repos\/acme\/shop\/issues\/comments\/(\d+)$/.exec(call.path);
    if (call.method === 'PATCH' && edited) return { body: comment(Number(edited[1])) };
    return undefined;
  });
  const comment = (user: { id: number; login: string }, body: string, id: number): Webhook => {
    const payload = json({
      action: 'created',
      issue: { number: 7, title: 'Refund order 42', user: { id: 111, login: 'ada', type: 'User' } },
      comment: {
        id,
        body,
        user: { ...user, type: 'User' },
        created_at: '2026-12-02T10:00:00Z',
        updated_at: '2026-12-02T10:00:00Z',
        html_url: `https://github.com/acme/shop/issues/7#issuecomment-${id}`,
      },
      repository,
      sender: { ...user, type: 'User' },
    });
    return {
      headers: () => ({
        'x-github-event': 'issue_comment',
        'x-github-delivery': `d-${id}`,
        'x-hub-signature-256': `sha256=${createHmac('sha256', webhookSecret).update(payload).digest('hex')}`,
      }),
      body: payload,
    };
  };
  const posts = () => api.calls.filter((call) => call.method === 'POST' && call.path.endsWith('/comments'));
  return {
    name: 'github',
    api,
    config: { token: 'ghp_test', webhookSecret, userName: 'heed-bot', apiUrl: api.url },
    mention: () => comment({ id: 111, login: 'ada' }, '@heed-bot refund order 42', 100),
    approve: () => comment({ id: 222, login: 'bob' }, '/approve', 101),
    requests: () => posts().filter((call) => String(call.body.body).includes('/approve')),
    posted: (wanted) => posts().filter((call) => call.body.body === wanted),
    edits: () => api.calls.filter((call) => call.method === 'PATCH').map((call) => shown(call.body.body)),
    close: () => api.close(),
  };
}

async function linear(): Promise<PlatformFake> {
  const webhookSecret = 'linear-webhook-secret-for-tests';
  const bodies = new Map<string, string>();
  let nextComment = 1;
  const api = await fakeApi((call) => {
    const query = String(call.body?.query ?? '');
    const variables = call.body?.variables ?? {};
    if (query.includes('LinearAdapterViewerOrganization'))
      return { body: { data: { viewer: { id: 'u-bot', displayName: 'heed', organization: { id: 'org-1' } } } } };
    if (/mutation createComment/.test(query)) {
      const id = `bot-${nextComment++}`;
      bodies.set(id, variables.input.body);
      return { body: { data: { commentCreate: { success: true, lastSyncId: 1, comment: { id } } } } };
    }
    if (/mutation updateComment/.test(query)) {
      bodies.set(variables.id, variables.input.body);
      return { body: { data: { commentUpdate: { success: true, lastSyncId: 2, comment: { id: variables.id } } } } };
    }
    if (/query comment\(/.test(query))
      return {
        body: {
          data: {
            comment: {
              id: variables.id,
              body: bodies.get(variables.id),
              createdAt: '2026-12-02T10:00:00.000Z',
              updatedAt: '2026-12-02T10:00:00.000Z',
              url: `https://linear.app/acme/issue/ENG-1#comment-${variables.id}`,
              reactions: [],
              reactionData: {},
            },
          },
        },
      };
    return undefined;
  });
  const comment = (user: { id: string; name: string }, body: string, id: string, root?: string): Webhook => {
    // Linear refuses a webhook more than 60 s old: the test re-sends it within seconds.
    const at = Date.now();
    const payload = json({
      type: 'Comment',
      action: 'create',
      organizationId: 'org-1',
      webhookTimestamp: at,
      createdAt: new Date(at).toISOString(),
      url: `https://linear.app/acme/issue/ENG-1#comment-${id}`,
      data: {
        id,
        body,
        issueId: 'iss-1',
        ...(root ? { parentId: root } : {}),
        userId: user.id,
        user: { ...user, url: `https://linear.app/acme/profiles/${user.name.toLowerCase()}` },
        createdAt: new Date(at).toISOString(),
        updatedAt: new Date(at).toISOString(),
      },
    });
    return {
      headers: () => ({ 'linear-signature': createHmac('sha256', webhookSecret).update(payload).digest('hex') }),
      body: payload,
    };
  };
  const mutations = (name: string) =>
    api.calls.filter((call) => String(call.body?.query ?? '').includes(`mutation ${name}`));
  return {
    name: 'linear',
    api,
    config: { apiKey: 'lin_api_test', webhookSecret, userName: 'heed', apiUrl: `${api.url}/graphql` },
    mention: () => comment({ id: 'u-ada', name: 'Ada' }, '@heed refund order 42', 'c-100'),
    approve: () => comment({ id: 'u-bob', name: 'Bob' }, '/approve', 'c-101', 'c-100'),
    requests: () =>
      mutations('createComment').filter((call) => String(call.body.variables.input.body).includes('/approve')),
    posted: (wanted) => mutations('createComment').filter((call) => call.body.variables.input.body === wanted),
    edits: () => mutations('updateComment').map((call) => shown(call.body.variables.input.body)),
    close: () => api.close(),
  };
}

async function discord(): Promise<PlatformFake> {
  const { publicKey, privateKey } = generateKeyPairSync('ed25519');
  const applicationId = '424242';
  const botToken = 'discord-bot-token';
  let nextId = 7000;
  const api = await fakeApi((call) => {
    const message = (id: string, channel: string) => ({
      id,
      channel_id: channel,
      content: call.body?.content ?? '',
      components: call.body?.components ?? [],
      embeds: call.body?.embeds ?? [],
      author: { id: applicationId, username: 'heed', bot: true },
      timestamp: '2026-12-02T10:00:00.000Z',
      attachments: [],
      mentions: [],
    });
    if (call.method === 'POST' && /^\/channels\/c1\/messages\/\d+\/threads$/.test(call.path))
      return { body: { id: 'th1', parent_id: 'c1', type: 11, name: 'thread' } };
    if (call.method === 'GET' && call.path === '/channels/th1')
      return { body: { id: 'th1', parent_id: 'c1', type: 11 } };
    const posted = /^\/channels\/(\w+)\/messages$/.exec(call.path);
    if (call.method === 'POST' && posted) return { body: message(String(nextId++), posted[1]) };
    const edited = /^\/channels\/(\w+)\/messages\/(\w+)$/.exec(call.path);
    if (call.method === 'PATCH' && edited) return { body: message(edited[2], edited[1]) };
    return undefined;
  });
  const posts = () => api.calls.filter((call) => call.method === 'POST' && call.path === '/channels/th1/messages');
  return {
    name: 'discord',
    api,
    config: {
      botToken,
      publicKey: publicKey.export({ format: 'der', type: 'spki' }).subarray(-32).toString('hex'),
      applicationId,
      apiUrl: api.url,
    },
    mention: () => ({
      // A Gateway message, forwarded with the bot token as Chat SDK's listener forwards it.
      headers: () => ({ 'x-discord-gateway-token': botToken }),
      body: json({
        type: 'GATEWAY_MESSAGE_CREATE',
        timestamp: 1_790_000_000_000,
        data: {
          id: '100',
          channel_id: 'c1',
          guild_id: 'g1',
          channel_type: 0,
          author: { id: '111', username: 'ada' },
          content: `<@${applicationId}> refund order 42`,
          mentions: [{ id: applicationId, username: 'heed', bot: true }],
          timestamp: '2026-12-02T10:00:00.000Z',
          attachments: [],
        },
      }),
    }),
    approve(request) {
      type Button = { label?: string; custom_id?: string };
      const buttons = (request.body.components ?? []).flatMap((row: { components: Button[] }) => row.components);
      const allow = buttons.find((button: Button) => button.label === 'Allow')!;
      const body = json({
        id: 'i101',
        application_id: applicationId,
        type: 3,
        token: 'interaction-token',
        version: 1,
        guild_id: 'g1',
        channel_id: 'th1',
        channel: { id: 'th1', type: 11, parent_id: 'c1' },
        member: { user: { id: '222', username: 'bob' } },
        message: { id: request.answer.id, channel_id: 'th1' },
        data: { custom_id: allow.custom_id, component_type: 2 },
      });
      return {
        headers: () => {
          const timestamp = String(Math.floor(Date.now() / 1000));
          return {
            'x-signature-timestamp': timestamp,
            'x-signature-ed25519': sign(null, Buffer.from(timestamp + body), privateKey).toString('hex'),
          };
        },
        body,
      };
    },
    requests: () => posts().filter((call) => (call.body.components ?? []).length > 0),
    posted: (wanted) => posts().filter((call) => call.body.content === wanted),
    edits: () => api.calls.filter((call) => call.method === 'PATCH').map((call) => shown(call.body)),
    close: () => api.close(),
  };
}

async function teams(): Promise<PlatformFake> {
  // As src/channels/chat-sdk/platforms/teams.test.ts: the test's RSA key signs the Bot Framework tokens,
  // published by a local OpenID metadata and JWKS server; Heed answers at the activity's `serviceUrl`.
  const appId = '00000000-0000-0000-0000-0000000000a1';
  const issuer = 'https://api.botframework.com';
  const kid = 'test-key';
  const { privateKey, publicKey } = generateKeyPairSync('rsa', { modulusLength: 2048 });
  const jwk = { ...(await exportJWK(publicKey)), kid, alg: 'RS256', use: 'sig', endorsements: ['msteams'] };
  const openId = await fakeApi((call) => {
    if (call.path === '/v1/.well-known/openidconfiguration')
      return { body: { issuer, jwks_uri: `${openId.url}/v1/.well-known/keys` } };
    if (call.path === '/v1/.well-known/keys') return { body: { keys: [jwk] } };
    return undefined;
  });
  const bot = { id: `28:${appId}`, name: 'Heed' };
  const people = {
    ada: { id: '29:ada', name: 'ada', aadObjectId: 'aad-ada' },
    bob: { id: '29:bob', name: 'bob', aadObjectId: 'aad-bob' },
  };
  const conversation = { id: '19:ops@thread.tacv2;messageid=1700', conversationType: 'channel', tenantId: 't1' };
  let nextId = 1;
  const api = await fakeApi((call) => {
    const path = decodeURIComponent(call.path);
    if (call.method === 'GET' && /^\/v3\/conversations\/[^/]+\/members\/[^/]+$/.test(path)) {
      const person = Object.values(people).find((entry) => entry.id === path.split('/').at(-1));
      return person ? { body: { ...person, userPrincipalName: `${person.name}@example.com` } } : undefined;
    }
    if (call.method === 'POST' && /^\/v3\/conversations\/[^/]+\/activities(\/[^/]+)?$/.test(path))
      return { status: 201, body: { id: `sent-${nextId++}` } };
    const updated = /^\/v3\/conversations\/[^/]+\/activities\/([^/]+)$/.exec(path);
    if (call.method === 'PUT' && updated) return { body: { id: updated[1] } };
    return undefined;
  });
  // Heed posts with this token (`channels.teams.token`); the Teams SDK reads it as a JWT.
  const botToken = await new SignJWT({ aud: issuer })
    .setProtectedHeader({ alg: 'RS256' })
    .setExpirationTime('2h')
    .sign(privateKey);
  // The Bot Framework's token for Heed, valid for an hour: long enough for a test to send a webhook again.
  const now = Math.floor(Date.now() / 1000);
  const bearer = await new SignJWT({
    iss: issuer,
    aud: appId,
    serviceurl: api.url,
    iat: now - 60,
    nbf: now - 60,
    exp: now + 3600,
  })
    .setProtectedHeader({ alg: 'RS256', kid, typ: 'JWT' })
    .sign(privateKey);
  const headers = () => ({ authorization: `Bearer ${bearer}` });
  const activity = (from: (typeof people)[keyof typeof people], id: string) => ({
    id,
    timestamp: '2026-12-02T10:00:00.000Z',
    channelId: 'msteams',
    serviceUrl: api.url,
    from,
    recipient: bot,
    conversation,
    channelData: { tenant: { id: 't1' }, channel: { id: '19:ops@thread.tacv2' } },
  });
  type Action = { title: string; data: Record<string, unknown> };
  const cardOf = (call: ApiCall): { actions?: Action[] } | undefined =>
    call.body?.attachments?.find((entry: { contentType: string }) => entry.contentType.includes('adaptive'))?.content;
  const posts = () => api.calls.filter((call) => call.method === 'POST' && /\/activities(\/[^/]+)?$/.test(call.path));
  return {
    name: 'teams',
    api,
    config: { appId, token: () => botToken, openIdMetadataUrl: `${openId.url}/v1/.well-known/openidconfiguration` },
    mention: () => ({
      headers,
      body: json({
        ...activity(people.ada, 'in-100'),
        type: 'message',
        text: '<at>Heed</at> refund order 42',
        entities: [{ type: 'mention', text: '<at>Heed</at>', mentioned: bot }],
      }),
    }),
    approve(request) {
      // Action.Submit: a message whose `value` holds the button's data.
      const allow = cardOf(request)!.actions!.find((action) => action.title === 'Allow')!;
      return {
        headers,
        body: json({
          ...activity(people.bob, 'in-101'),
          type: 'message',
          replyToId: request.answer.id,
          value: allow.data,
        }),
      };
    },
    requests: () => posts().filter((call) => cardOf(call) !== undefined),
    posted: (wanted) => posts().filter((call) => call.body?.text === wanted),
    edits: () => api.calls.filter((call) => call.method === 'PUT').map((call) => shown(call.body)),
    close: async () => {
      await api.close();
      await openId.close();
    },
  };
}

async function gchat(): Promise<PlatformFake> {
  // As src/channels/chat-sdk/platforms/gchat.test.ts: the test's RSA key signs Google Chat's project-number
  // tokens, published by a local key server in place of Google's; Heed posts through a fake Chat API.
  const projectNumber = '123456789012';
  const endpointUrl = 'https://heed.example.com/api/channels/gchat/events';
  const chatIssuer = 'chat@system.gserviceaccount.com';
  const accessToken = 'ya29.test-access-token';
  const kid = 'chat-key';
  const { privateKey, publicKey } = generateKeyPairSync('rsa', { modulusLength: 2048 });
  const jwks = { keys: [{ ...(await exportJWK(publicKey)), kid, alg: 'RS256', use: 'sig' }] };
  // Google's ID-token keys are not served: only project-number tokens are sent, and nothing reaches Google.
  const keys = await fakeApi((call) =>
    call.path === `/service_accounts/v1/jwk/${chatIssuer}` ? { body: jwks } : undefined,
  );
  const space = { name: 'spaces/AAAA', type: 'ROOM', spaceType: 'SPACE', displayName: 'Ops' };
  const threadName = 'spaces/AAAA/threads/t1';
  const bot = { name: 'users/app-1', displayName: 'Heed', type: 'BOT' };
  const people = {
    ada: { name: 'users/101', displayName: 'ada', email: 'ada@example.com', type: 'HUMAN' },
    bob: { name: 'users/102', displayName: 'bob', email: 'bob@example.com', type: 'HUMAN' },
  };
  let nextId = 1;
  const api = await fakeApi((call) => {
    if (call.method === 'POST' && /^\/v1\/spaces\/[^/]+\/messages$/.test(call.path))
      return { body: { name: `spaces/AAAA/messages/sent-${nextId++}`, thread: { name: threadName }, ...call.body } };
    if (call.method === 'PUT' && /^\/v1\/spaces\/[^/]+\/messages\/[^/]+$/.test(call.path))
      return { body: { name: call.path.slice('/v1/'.length), ...call.body } };
    return undefined;
  });
  // Google Chat's token for Heed, valid for an hour: long enough for a test to send a webhook again.
  const now = Math.floor(Date.now() / 1000);
  const bearer = await new SignJWT({ iss: chatIssuer, aud: projectNumber, iat: now - 60, exp: now + 3600 })
    .setProtectedHeader({ alg: 'RS256', kid, typ: 'JWT' })
    .sign(privateKey);
  const headers = () => ({ authorization: `Bearer ${bearer}` });
  type Button = {
    text: string;
    onClick: { action: { function: string; parameters: { key: string; value: string }[] } };
  };
  type Widget = { buttonList?: { buttons?: Button[] } };
  const cardOf = (call: ApiCall): { sections: { widgets: Widget[] }[] } | undefined => call.body?.cardsV2?.[0]?.card;
  const posts = () => api.calls.filter((call) => call.method === 'POST');
  return {
    name: 'gchat',
    api,
    config: {
      token: () => accessToken,
      endpointUrl,
      googleChatProjectNumber: projectNumber,
      botUserId: bot.name,
      chatJwksUrl: `${keys.url}/service_accounts/v1/jwk/${chatIssuer}`,
      googleJwksUrl: `${keys.url}/oauth2/v3/certs`,
      apiUrl: api.url,
    },
    mention: () => {
      // A message that mentions the app in a space's thread (Workspace add-on shape).
      const message = {
        name: 'spaces/AAAA/messages/in-100',
        sender: people.ada,
        createTime: '2026-12-02T10:00:00.000Z',
        text: '@Heed refund order 42',
        argumentText: ' refund order 42',
        annotations: [{ type: 'USER_MENTION', startIndex: 0, length: 5, userMention: { user: bot, type: 'MENTION' } }],
        thread: { name: threadName },
        space,
      };
      return {
        headers,
        body: json({
          commonEventObject: { hostApp: 'CHAT', userLocale: 'en' },
          chat: { user: people.ada, eventTime: message.createTime, messagePayload: { space, message } },
        }),
      };
    },
    approve(request) {
      // A click on Allow: the button's function and parameters, and the card's (empty) inputs.
      const buttons = cardOf(request)!.sections.flatMap((section) =>
        section.widgets.flatMap((widget) => widget.buttonList?.buttons ?? []),
      );
      const { action } = buttons.find((button) => button.text === 'Allow')!.onClick;
      return {
        headers,
        body: json({
          commonEventObject: {
            hostApp: 'CHAT',
            invokedFunction: action.function,
            parameters: Object.fromEntries(action.parameters.map((entry) => [entry.key, entry.value])),
            formInputs: {},
          },
          chat: {
            user: people.bob,
            eventTime: '2026-12-02T10:01:00.000Z',
            buttonClickedPayload: {
              space,
              message: { name: request.answer.name, thread: { name: threadName }, sender: bot, space },
              user: people.bob,
            },
          },
        }),
      };
    },
    requests: () => posts().filter((call) => cardOf(call) !== undefined),
    posted: (wanted) => posts().filter((call) => call.body?.text === wanted),
    edits: () => api.calls.filter((call) => call.method === 'PUT').map((call) => shown(call.body)),
    close: async () => {
      await api.close();
      await keys.close();
    },
  };
}
