import { generateKeyPairSync, type KeyObject } from 'node:crypto';
import { SignJWT, exportJWK } from 'jose';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { startServer, type TestServer } from '../../../../test/http-fixtures.js';
import { channelAgent, expectInert } from '../../../../test/channels/channel-agent.js';
import { fakeApi, type ApiCall, type FakeApi } from '../../../../test/channels/fake-api.js';

/**
 * Microsoft Teams end to end (docs/channels.md): Heed's endpoint gets Bot Framework activities carrying a
 * JWT signed with a key the test makes, published by a local OpenID metadata and JWKS server
 * (`channels.teams.openIdMetadataUrl`); Heed answers through a local fake of the Bot Framework connector,
 * which each activity names as its `serviceUrl`.
 */

const appId = '00000000-0000-0000-0000-0000000000a1';
const issuer = 'https://api.botframework.com';
const { privateKey, publicKey } = generateKeyPairSync('rsa', { modulusLength: 2048 });
const kid = 'test-key';
const bot = { id: `28:${appId}`, name: 'Heed' };
const people = {
  ada: { id: '29:ada', name: 'Ada', aadObjectId: 'aad-ada' },
  bob: { id: '29:bob', name: 'Bob', aadObjectId: 'aad-bob' },
  cyd: { id: '29:cyd', name: 'Cyd', aadObjectId: 'aad-cyd' },
};
const conversation = { id: '19:ops@thread.tacv2;messageid=1700', conversationType: 'channel', tenantId: 't1' };

let openId: FakeApi;
let connector: FakeApi;
let server: TestServer;
let ran: Map<string, number>;
let nextId: number;
/** The token Heed posts to the connector with (`channels.teams.token`): the Teams SDK reads it as a JWT. */
let botToken: string;

beforeEach(async () => {
  nextId = 1;
  botToken = await new SignJWT({ aud: 'https://api.botframework.com' })
    .setProtectedHeader({ alg: 'RS256' })
    .setExpirationTime('2h')
    .sign(privateKey);
  const jwk = { ...(await exportJWK(publicKey)), kid, alg: 'RS256', use: 'sig', endorsements: ['msteams'] };
  openId = await fakeApi((call) => {
    if (call.path === '/v1/.well-known/openidconfiguration')
      return { body: { issuer, jwks_uri: `${openId.url}/v1/.well-known/keys` } };
    if (call.path === '/v1/.well-known/keys') return { body: { keys: [jwk] } };
    return undefined;
  });
  connector = await fakeApi((call) => {
    const path = decodeURIComponent(call.path);
    if (call.method === 'GET' && /^\/v3\/conversations\/[^/]+\/members\/[^/]+$/.test(path)) {
      const id = path.split('/').at(-1)!;
      const person = Object.values(people).find((entry) => entry.id === id);
      return person
        ? { body: { ...person, userPrincipalName: `${person.name.toLowerCase()}@example.com` } }
        : undefined;
    }
    if (call.method === 'POST' && /^\/v3\/conversations\/[^/]+\/activities(\/[^/]+)?$/.test(path))
      return { status: 201, body: { id: `sent-${nextId++}` } };
    const updated = /^\/v3\/conversations\/[^/]+\/activities\/([^/]+)$/.exec(path);
    if (call.method === 'PUT' && updated) return { body: { id: updated[1] } };
    return undefined;
  });
  ran = new Map();
  server = await startServer({
    agents: [channelAgent(ran)],
    channels: {
      teams: {
        agent: 'support',
        appId,
        token: () => botToken,
        openIdMetadataUrl: `${openId.url}/v1/.well-known/openidconfiguration`,
      },
    },
    notify: { pollIntervalMs: 50, retry: { firstDelayMs: 50, maxDelayMs: 200 } },
  });
});
afterEach(async () => {
  await server.close();
  await connector.close();
  await openId.close();
});

/** A Bot Framework token: Microsoft's claims (as `claims` change them), signed with the test's key unless told otherwise. */
function token(claims: Record<string, unknown> = {}, key: KeyObject = privateKey) {
  const now = Math.floor(Date.now() / 1000);
  const payload = { iss: issuer, aud: appId, serviceurl: connector.url, iat: now - 60, nbf: now - 60, exp: now + 3600 };
  return new SignJWT({ ...payload, ...claims }).setProtectedHeader({ alg: 'RS256', kid, typ: 'JWT' }).sign(key);
}

async function send(activity: Record<string, unknown>, bearer: string | null | Promise<string> = token()) {
  const jwt = await bearer;
  return fetch(`${server.url}/api/channels/teams/events`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...(jwt ? { authorization: `Bearer ${jwt}` } : {}) },
    body: JSON.stringify(activity),
  });
}

function base(from: (typeof people)[keyof typeof people]) {
  return {
    id: `in-${nextId++}`,
    timestamp: '2026-12-02T10:00:00.000Z',
    channelId: 'msteams',
    serviceUrl: connector.url,
    from,
    recipient: bot,
    conversation,
    channelData: { tenant: { id: 't1' }, channel: { id: '19:ops@thread.tacv2' } },
  };
}

function mention(from: (typeof people)[keyof typeof people], text: string) {
  return {
    ...base(from),
    type: 'message',
    text: `<at>Heed</at> ${text}`,
    entities: [{ type: 'mention', text: '<at>Heed</at>', mentioned: bot }],
  };
}

type Card = { body: { type: string; id?: string; text?: string; choices?: { title: string; value: string }[] }[] };
type SubmitAction = { type: string; title: string; data: Record<string, unknown> };
const cardOf = (call: ApiCall): (Card & { actions?: SubmitAction[] }) | undefined =>
  call.body?.attachments?.find((entry: { contentType: string }) => entry.contentType.includes('adaptive'))?.content;
const withCard = (call: ApiCall) => cardOf(call) !== undefined;
const shown = (call: ApiCall) => JSON.stringify(call.body);
const posts = () => connector.calls.filter((call) => call.method === 'POST' && call.path.endsWith('/activities'));
const updates = () => connector.calls.filter((call) => call.method === 'PUT');

/** A click on a card's button, as Teams sends `Action.Submit`: a message whose `value` has its data and the inputs. */
function click(
  from: (typeof people)[keyof typeof people],
  posted: ApiCall,
  title: string,
  inputs: Record<string, string> = {},
) {
  const action = cardOf(posted)?.actions?.find((entry) => entry.title === title);
  if (!action) throw new Error(`No button "${title}" on ${shown(posted)}`);
  return { ...base(from), type: 'message', replyToId: posted.answer.id, value: { ...action.data, ...inputs } };
}

describe('Microsoft Teams', () => {
  it('a missing, bad, expired, foreign or misdirected token is 401 and records nothing', async () => {
    const activity = mention(people.ada, 'refund order 42');
    const otherKey = generateKeyPairSync('rsa', { modulusLength: 2048 }).privateKey;
    const refusals = [
      null,
      'not-a-jwt',
      token({}, otherKey),
      token({ exp: Math.floor(Date.now() / 1000) - 3600 }),
      token({ aud: 'another-app-id' }),
      token({ iss: 'https://sts.example.com' }),
      token({ serviceurl: 'https://smba.trafficmanager.net/emea/' }),
    ];
    for (const bearer of refusals) {
      const refused = await send(activity, bearer);
      expect(refused.status).toBe(401);
      expect(((await refused.json()) as { error: { code: string } }).error.code).toBe('unauthorized');
    }
    expect(await server.heed.listConversations({})).toEqual([]);
    expect(connector.calls).toEqual([]);
    // The keys were read from the configured metadata, not Microsoft's.
    expect(openId.calls.map((call) => call.path)).toContain('/v1/.well-known/keys');
  });

  it('a mention pauses on an approval card with its tool and arguments; Allow by another person runs the tool once, the reply comes, the card says who; a late click runs nothing', async () => {
    const activity = mention(people.ada, 'please refund order 42');
    expect((await send(activity)).status).toBe(200);
    const [recorded] = await server.heed.listConversations({});
    expect(recorded.channel).toMatch(/^teams:/);
    // The Bot Framework sends an activity again until it has its answer: the same message is recorded once.
    expect((await send(activity)).status).toBe(200);

    await connector.until(() => posts().some(withCard));
    const request = posts().find(withCard)!;
    expect(request.headers.authorization).toBe(`Bearer ${botToken}`);
    expect(decodeURIComponent(request.path)).toBe(`/v3/conversations/${conversation.id}/activities`);
    expect(shown(request)).toContain('Approval needed: Run issue_refund?');
    expect(shown(request)).toContain('\\"orderId\\": 42');
    const card = cardOf(request)!;
    expect(card.actions!.map((action) => [action.type, action.title])).toEqual([
      ['Action.Submit', 'Allow'],
      ['Action.Submit', 'Deny'],
    ]);
    expect(card.body.find((element) => element.type === 'Input.Text')?.id).toBe('answer.comment');
    const snapshot = await server.heed.conversation(recorded.id).get();
    expect(snapshot.messages.filter((entry) => entry.role === 'user')).toHaveLength(1);
    expect(snapshot.runtime.status).toBe('requires_action');

    expect((await send(click(people.bob, request, 'Allow', { 'answer.comment': 'ok, small amount' }))).status).toBe(
      200,
    );
    await connector.until(() => posts().some((call) => shown(call).includes('Done.')));
    expect(ran.get('issue_refund')).toBe(1);
    const [action] = await server.heed.conversation(recorded.id).actions();
    expect(action).toMatchObject({
      status: 'resolved',
      resolvedBy: 'teams:29:bob',
      channel: 'teams',
      resolution: { decision: 'allow', comment: 'ok, small amount' },
    });
    const events = await server.heed.conversation(recorded.id).events();
    expect(
      events.find((entry) => entry.type === 'message.created' && (entry.data as { role: string }).role === 'user')!
        .data,
    ).toMatchObject({ by: 'teams:29:ada' });

    await connector.until(() => updates().length === 1);
    const edit = updates()[0];
    expect(decodeURIComponent(edit.path)).toBe(`/v3/conversations/${conversation.id}/activities/${request.answer.id}`);
    expect(shown(edit)).toContain('Allowed by @Bob');
    expect(cardOf(edit)?.actions ?? []).toEqual([]);

    // A late click, here as an Action.Execute invoke: a note naming who answered, and nothing runs again.
    const deny = cardOf(request)!.actions!.find((entry) => entry.title === 'Deny')!;
    const late = await send({
      ...base(people.cyd),
      type: 'invoke',
      name: 'adaptiveCard/action',
      replyToId: request.answer.id,
      value: { action: { type: 'Action.Execute', data: deny.data } },
    });
    expect(late.status).toBe(200);
    await connector.until(() => posts().some((call) => shown(call).includes('already settled')));
    expect(shown(posts().find((call) => shown(call).includes('already settled'))!)).toMatch(/Cyd.*Allowed by @Bob/);
    expect(ran.get('issue_refund')).toBe(1);
    expect(posts().filter(withCard)).toHaveLength(1);
  });

  it('a question with options is answered by its button', async () => {
    await send(mention(people.ada, 'pick a size'));
    await connector.until(() => posts().some(withCard));
    const request = posts().find(withCard)!;
    expect(shown(request)).toContain('Which size?');
    expect(cardOf(request)!.actions!.map((action) => action.title)).toEqual(['Small', 'Large', 'Submit', 'Skip']);
    await send(click(people.bob, request, 'Large'));
    const [recorded] = await server.heed.listConversations({});
    expect((await server.heed.conversation(recorded.id).actions())[0]).toMatchObject({
      status: 'resolved',
      resolvedBy: 'teams:29:bob',
      resolution: { answers: { size: ['l'] } },
    });
    await connector.until(() => updates().length === 1);
    expect(shown(updates()[0])).toMatch(/Answered by @Bob.*Large/);
  });

  it('typed questions are inputs in the card, sent with Submit; an answer the question refuses gets a note and settles nothing', async () => {
    await send(mention(people.ada, 'ask me'));
    await connector.until(() => posts().some(withCard));
    const request = posts().find(withCard)!;
    const inputs = cardOf(request)!.body.filter((element) => element.type.startsWith('Input.'));
    expect(inputs.map((input) => [input.type, input.id])).toEqual([
      ['Input.ChoiceSet', 'answer.size'],
      ['Input.Number', 'answer.qty'],
    ]);
    expect(inputs[0]).toMatchObject({
      value: 's',
      choices: [
        { title: 'Small', value: 's' },
        { title: 'Large', value: 'l' },
      ],
    });
    expect(inputs[1]).toMatchObject({ min: 1, max: 9, value: 1 });
    expect(cardOf(request)!.actions!.map((action) => action.title)).toEqual(['Submit', 'Skip']);
    const [recorded] = await server.heed.listConversations({});

    // 12 is over the question's max of 9: refused by the normal order, said in the thread.
    await send(click(people.bob, request, 'Submit', { 'answer.size': 'l', 'answer.qty': '12' }));
    await connector.until(() => posts().some((call) => shown(call).includes('Bob') && /9/.test(shown(call))));
    expect((await server.heed.conversation(recorded.id).actions())[0].status).toBe('pending');

    await send(click(people.bob, request, 'Submit', { 'answer.size': 'l', 'answer.qty': '3' }));
    expect((await server.heed.conversation(recorded.id).actions())[0]).toMatchObject({
      status: 'resolved',
      resolvedBy: 'teams:29:bob',
      resolution: { answers: { size: ['l'], qty: ['3'] } },
    });
    await connector.until(() => posts().some((call) => shown(call).includes('Done.')));
    await connector.until(() => updates().length === 1);
    expect(shown(updates()[0])).toMatch(/Answered by @Bob/);
    expect(cardOf(updates()[0])!.body.some((element) => element.type.startsWith('Input.'))).toBe(false);
  });
});

describe('Teams: what an agent writes stays words', () => {
  it('links, addresses and mentions in a question arrive escaped', async () => {
    await send(mention(people.ada, 'spoof'));
    await connector.until(() => posts().some(withCard));
    expectInert(shown(posts().find(withCard)!));
  });
});
