import { generateKeyPairSync, type KeyObject } from 'node:crypto';
import { SignJWT, exportJWK } from 'jose';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { startServer, type TestServer } from '../../../../test/http-fixtures.js';
import { channelAgent, expectInert } from '../../../../test/channels/channel-agent.js';
import { fakeApi, type ApiCall, type FakeApi } from '../../../../test/channels/fake-api.js';
import { createHeed } from '../../../heed.js';

/**
 * Google Chat end to end (docs/channels.md): Heed's endpoint gets Chat app events (Workspace add-on shape)
 * carrying JWTs signed with keys the test makes, published by a local key server in place of Google's
 * (`channels.gchat.chatJwksUrl`, `googleJwksUrl`); Heed posts through a local fake of the Chat API
 * (`apiUrl`) with the access token `channels.gchat.token` gives, so nothing reaches Google.
 */

const projectNumber = '123456789012';
const endpointUrl = 'https://heed.example.com/api/channels/gchat/events';
const chatIssuer = 'chat@system.gserviceaccount.com';
const accessToken = 'ya29.test-access-token';
const chatKey = generateKeyPairSync('rsa', { modulusLength: 2048 });
const googleKey = generateKeyPairSync('rsa', { modulusLength: 2048 });
const space = { name: 'spaces/AAAA', type: 'ROOM', spaceType: 'SPACE', displayName: 'Ops' };
const threadName = 'spaces/AAAA/threads/t1';
const bot = { name: 'users/app-1', displayName: 'Heed', type: 'BOT' };
const people = {
  ada: { name: 'users/101', displayName: 'Ada', email: 'ada@example.com', type: 'HUMAN' },
  bob: { name: 'users/102', displayName: 'Bob', email: 'bob@example.com', type: 'HUMAN' },
  cyd: { name: 'users/103', displayName: 'Cyd', email: 'cyd@example.com', type: 'HUMAN' },
};
type Person = (typeof people)[keyof typeof people];

let keys: FakeApi;
let api: FakeApi;
let server: TestServer;
let ran: Map<string, number>;
let nextId: number;

beforeEach(async () => {
  nextId = 1;
  const jwk = async (key: KeyObject, kid: string) => ({ ...(await exportJWK(key)), kid, alg: 'RS256', use: 'sig' });
  const chatJwks = { keys: [await jwk(chatKey.publicKey, 'chat-key')] };
  const googleJwks = { keys: [await jwk(googleKey.publicKey, 'google-key')] };
  keys = await fakeApi((call) => {
    if (call.path === `/service_accounts/v1/jwk/${chatIssuer}`) return { body: chatJwks };
    if (call.path === '/oauth2/v3/certs') return { body: googleJwks };
    return undefined;
  });
  api = await fakeApi((call) => {
    if (call.method === 'POST' && /^\/v1\/spaces\/[^/]+\/messages$/.test(call.path))
      return {
        body: {
          name: `spaces/AAAA/messages/sent-${nextId++}`,
          thread: call.body?.thread ?? { name: `spaces/AAAA/threads/new-${nextId}` },
          ...call.body,
        },
      };
    if (call.method === 'PUT' && /^\/v1\/spaces\/[^/]+\/messages\/[^/]+$/.test(call.path))
      return { body: { name: call.path.slice('/v1/'.length), ...call.body } };
    return undefined;
  });
  ran = new Map();
  server = await startServer({
    agents: [channelAgent(ran)],
    channels: {
      gchat: {
        agent: 'support',
        token: () => accessToken,
        endpointUrl,
        googleChatProjectNumber: projectNumber,
        botUserId: bot.name,
        chatJwksUrl: `${keys.url}/service_accounts/v1/jwk/${chatIssuer}`,
        googleJwksUrl: `${keys.url}/oauth2/v3/certs`,
        apiUrl: api.url,
      },
    },
    notify: { pollIntervalMs: 50, retry: { firstDelayMs: 50, maxDelayMs: 200 } },
  });
});
afterEach(async () => {
  await server.close();
  await api.close();
  await keys.close();
});

/** A project-number token as Google Chat signs it (its claims as `claims` change them), with Chat's key unless told otherwise. */
function token(claims: Record<string, unknown> = {}, key: KeyObject = chatKey.privateKey, kid = 'chat-key') {
  const now = Math.floor(Date.now() / 1000);
  const payload = { iss: chatIssuer, aud: projectNumber, iat: now - 60, exp: now + 3600 };
  return new SignJWT({ ...payload, ...claims }).setProtectedHeader({ alg: 'RS256', kid, typ: 'JWT' }).sign(key);
}

/** An endpoint-URL token: a Google ID token for the endpoint, issued to Chat's account. */
function idToken(claims: Record<string, unknown> = {}) {
  const base = { iss: 'https://accounts.google.com', aud: endpointUrl, email: chatIssuer, email_verified: true };
  return token({ ...base, ...claims }, googleKey.privateKey, 'google-key');
}

async function send(event: Record<string, unknown>, bearer: string | null | Promise<string> = token()) {
  const jwt = await bearer;
  return fetch(`${server.url}/api/channels/gchat/events`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...(jwt ? { authorization: `Bearer ${jwt}` } : {}) },
    body: JSON.stringify(event),
  });
}

/** A message that mentions the app in a space's thread, as Google Chat sends it. */
function mention(from: Person, text: string) {
  const message = {
    name: `spaces/AAAA/messages/in-${nextId++}`,
    sender: from,
    createTime: '2026-12-02T10:00:00.000Z',
    text: `@Heed ${text}`,
    argumentText: ` ${text}`,
    annotations: [{ type: 'USER_MENTION', startIndex: 0, length: 5, userMention: { user: bot, type: 'MENTION' } }],
    thread: { name: threadName },
    space,
  };
  return {
    commonEventObject: { hostApp: 'CHAT', userLocale: 'en' },
    chat: { user: from, eventTime: message.createTime, messagePayload: { space, message } },
  };
}

type Widget = Record<string, { text?: string; name?: string; buttons?: Button[] } & Record<string, unknown>>;
type Button = { text: string; onClick: { action: { function: string; parameters: { key: string; value: string }[] } } };
const cardOf = (call: ApiCall) =>
  call.body?.cardsV2?.[0]?.card as { header?: { title: string }; sections: { widgets: Widget[] }[] } | undefined;
const widgets = (call: ApiCall) => cardOf(call)?.sections.flatMap((section) => section.widgets) ?? [];
const buttons = (call: ApiCall): Button[] =>
  widgets(call).flatMap((widget) => (widget.buttonList?.buttons as Button[] | undefined) ?? []);
const withCard = (call: ApiCall) => cardOf(call) !== undefined;
const shown = (call: ApiCall) => JSON.stringify(call.body);
const posts = () => api.calls.filter((call) => call.method === 'POST');
const updates = () => api.calls.filter((call) => call.method === 'PUT');

/** A click on a card's button, as Google Chat sends it: the button's parameters, and the card's inputs. */
function click(from: Person, posted: ApiCall, title: string, inputs: Record<string, string[]> = {}) {
  const button = buttons(posted).find((entry) => entry.text === title);
  if (!button) throw new Error(`No button "${title}" on ${shown(posted)}`);
  const parameters = Object.fromEntries(button.onClick.action.parameters.map((entry) => [entry.key, entry.value]));
  const formInputs = Object.fromEntries(
    Object.entries(inputs).map(([name, value]) => [name, { stringInputs: { value } }]),
  );
  return {
    commonEventObject: { hostApp: 'CHAT', invokedFunction: button.onClick.action.function, parameters, formInputs },
    chat: {
      user: from,
      eventTime: '2026-12-02T10:01:00.000Z',
      buttonClickedPayload: {
        space,
        message: { name: posted.answer.name, thread: { name: threadName }, sender: bot, space },
        user: from,
      },
    },
  };
}

describe('Google Chat', () => {
  it('a missing, bad, expired or foreign token, or one for another audience, is 401 and records nothing', async () => {
    const event = mention(people.ada, 'refund order 42');
    const otherKey = generateKeyPairSync('rsa', { modulusLength: 2048 }).privateKey;
    const refusals = [
      null,
      'not-a-jwt',
      token({}, otherKey),
      token({ exp: Math.floor(Date.now() / 1000) - 3600 }),
      token({ aud: '999999999999' }),
      token({ iss: 'someone@example.iam.gserviceaccount.com' }),
      // Google's ID-token key does not sign Chat's project-number tokens.
      token({}, googleKey.privateKey, 'google-key'),
      idToken({ aud: 'https://elsewhere.example.com/hook' }),
      // Anyone can have Google mint an ID token for a public URL: only Chat's verified email counts.
      idToken({ email: 'attacker@example.com' }),
      idToken({ email_verified: false }),
    ];
    for (const bearer of refusals) {
      const refused = await send(event, bearer);
      expect(refused.status).toBe(401);
      expect(((await refused.json()) as { error: { code: string } }).error.code).toBe('unauthorized');
    }
    expect(await server.heed.listConversations({})).toEqual([]);
    expect(api.calls).toEqual([]);
    // The keys were read from the configured URLs, not Google's.
    expect(keys.calls.map((call) => call.path)).toEqual(
      expect.arrayContaining([`/service_accounts/v1/jwk/${chatIssuer}`, '/oauth2/v3/certs']),
    );
  });

  it('an endpoint-URL token from Chat is accepted as well', async () => {
    expect((await send(mention(people.ada, 'hello'), idToken())).status).toBe(200);
    await api.until(() => posts().some((call) => shown(call).includes('Hello.')));
  });

  it('a mention pauses on an approval card with its tool and arguments; Allow by another person runs the tool once, the reply comes, the card says who; a late click runs nothing', async () => {
    const event = mention(people.ada, 'please refund order 42');
    expect((await send(event)).status).toBe(200);
    const [recorded] = await server.heed.listConversations({});
    expect(recorded.channel).toBe(`gchat:spaces/AAAA:${Buffer.from(threadName).toString('base64url')}`);
    // Google sends an event again until it has its answer: the same message is recorded once.
    expect((await send(event)).status).toBe(200);

    await api.until(() => posts().some(withCard));
    const request = posts().find(withCard)!;
    expect(request.headers.authorization).toBe(`Bearer ${accessToken}`);
    expect(request.path).toBe('/v1/spaces/AAAA/messages');
    expect(request.body.thread).toEqual({ name: threadName });
    expect(shown(request)).toContain('Approval needed: Run issue_refund?');
    expect(shown(request)).toContain('\\"orderId\\": 42');
    expect(buttons(request).map((button) => button.text)).toEqual(['Allow', 'Deny']);
    expect(buttons(request)[0].onClick.action.function).toBe(endpointUrl);
    expect(widgets(request).find((widget) => widget.textInput)?.textInput.name).toBe('answer.comment');
    // The comment field sits after the arguments, just above Allow / Deny.
    expect(widgets(request).map((widget) => Object.keys(widget)[0])).toEqual([
      'textParagraph',
      'textParagraph',
      'textInput',
      'buttonList',
    ]);
    const snapshot = await server.heed.conversation(recorded.id).get();
    expect(snapshot.messages.filter((entry) => entry.role === 'user')).toHaveLength(1);
    expect(snapshot.runtime.status).toBe('requires_action');

    const allowed = await send(click(people.bob, request, 'Allow', { 'answer.comment': ['ok, small amount'] }));
    expect(allowed.status).toBe(200);
    await api.until(() => posts().some((call) => shown(call).includes('Done.')));
    expect(ran.get('issue_refund')).toBe(1);
    const reply = posts().find((call) => shown(call).includes('Done.'))!;
    expect(reply.body.thread).toEqual({ name: threadName });
    const [action] = await server.heed.conversation(recorded.id).actions();
    expect(action).toMatchObject({
      status: 'resolved',
      resolvedBy: 'gchat:users/102',
      channel: 'gchat',
      resolution: { decision: 'allow', comment: 'ok, small amount' },
    });
    const events = await server.heed.conversation(recorded.id).events();
    expect(
      events.find((entry) => entry.type === 'message.created' && (entry.data as { role: string }).role === 'user')!
        .data,
    ).toMatchObject({ by: 'gchat:users/101' });

    await api.until(() => updates().length === 1);
    const edit = updates()[0];
    expect(edit.path).toBe(`/v1/${request.answer.name}`);
    expect(shown(edit)).toContain('Allowed by @Bob');
    expect(buttons(edit)).toEqual([]);

    // A late click: a reply naming who answered, and nothing runs again.
    expect((await send(click(people.cyd, request, 'Deny'))).status).toBe(200);
    await api.until(() => posts().some((call) => shown(call).includes('already settled')));
    expect(shown(posts().find((call) => shown(call).includes('already settled'))!)).toMatch(/Cyd.*Allowed by @Bob/);
    expect(ran.get('issue_refund')).toBe(1);
    expect(posts().filter(withCard)).toHaveLength(1);
  });

  it('a question with options is answered by its button', async () => {
    await send(mention(people.ada, 'pick a size'));
    await api.until(() => posts().some(withCard));
    const request = posts().find(withCard)!;
    expect(shown(request)).toContain('Which size?');
    expect(buttons(request).map((button) => button.text)).toEqual(['Small', 'Large', 'Submit', 'Skip']);
    expect((await send(click(people.bob, request, 'Large'))).status).toBe(200);
    const [recorded] = await server.heed.listConversations({});
    expect((await server.heed.conversation(recorded.id).actions())[0]).toMatchObject({
      status: 'resolved',
      resolvedBy: 'gchat:users/102',
      resolution: { answers: { size: ['l'] } },
    });
    await api.until(() => updates().length === 1);
    expect(shown(updates()[0])).toMatch(/Answered by @Bob.*Large/);
  });

  it('typed questions are inputs in the card, sent with Submit; an answer the question refuses gets a reply and settles nothing', async () => {
    await send(mention(people.ada, 'ask me'));
    await api.until(() => posts().some(withCard));
    const request = posts().find(withCard)!;
    const inputs = widgets(request).filter((widget) => widget.selectionInput || widget.textInput);
    expect(inputs).toEqual([
      {
        selectionInput: {
          name: 'answer.size',
          label: 'Size: Which size?',
          type: 'RADIO_BUTTON',
          items: [
            { text: 'Small', value: 's', selected: true },
            { text: 'Large', value: 'l', selected: false },
          ],
        },
      },
      { textInput: expect.objectContaining({ name: 'answer.qty', type: 'SINGLE_LINE', value: '1' }) },
    ]);
    expect(buttons(request).map((button) => button.text)).toEqual(['Submit', 'Skip']);
    const [recorded] = await server.heed.listConversations({});

    // 12 is over the question's max of 9: refused by the normal order, said in the thread.
    await send(click(people.bob, request, 'Submit', { 'answer.size': ['l'], 'answer.qty': ['12'] }));
    await api.until(() => posts().some((call) => shown(call).includes('Bob') && /9/.test(shown(call))));
    expect((await server.heed.conversation(recorded.id).actions())[0].status).toBe('pending');

    await send(click(people.bob, request, 'Submit', { 'answer.size': ['l'], 'answer.qty': ['3'] }));
    expect((await server.heed.conversation(recorded.id).actions())[0]).toMatchObject({
      status: 'resolved',
      resolvedBy: 'gchat:users/102',
      resolution: { answers: { size: ['l'], qty: ['3'] } },
    });
    await api.until(() => posts().some((call) => shown(call).includes('Done.')));
    await api.until(() => updates().length === 1);
    expect(shown(updates()[0])).toMatch(/Answered by @Bob/);
    expect(widgets(updates()[0]).some((widget) => widget.selectionInput || widget.textInput)).toBe(false);
  });

  it('a config without a way to post (`credentials` or `token`), or without `endpointUrl`, is refused at start', () => {
    const config = (gchat: Record<string, unknown>) => () =>
      createHeed({ agents: [channelAgent(new Map())], channels: { gchat } } as Parameters<typeof createHeed>[0]);
    expect(config({ agent: 'support', endpointUrl })).toThrow(/channels\.gchat: expected `credentials` or `token`/);
    expect(config({ agent: 'support', token: () => accessToken })).toThrow(/channels\.gchat\.endpointUrl/);
  });
});

describe('Google Chat: what an agent writes stays words', () => {
  it('links, addresses, mentions and HTML in a question arrive escaped', async () => {
    await send(mention(people.ada, 'spoof'));
    await api.until(() => posts().some(withCard));
    const received = shown(posts().find(withCard)!);
    expectInert(received);
    expect(received).not.toContain('<b>bold');
  });
});
