import { createHmac } from 'node:crypto';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { startServer, type TestServer } from '../../../../test/http-fixtures.js';
import { channelAgent, expectInert } from '../../../../test/channels/channel-agent.js';
import { fakeApi, type ApiCall, type FakeApi } from '../../../../test/channels/fake-api.js';

/**
 * Linear end to end (docs/channels.md): Heed's endpoint gets `Comment` webhooks signed with
 * `linear-signature` and a `webhookTimestamp`, and talks to a local fake of the GraphQL API
 * (`channels.linear.apiUrl`). Linear has no buttons: people answer with comment commands in the thread.
 */

const webhookSecret = 'linear-webhook-secret-for-tests';
const people = {
  ada: { id: 'u-ada', name: 'Ada', url: 'https://linear.app/acme/profiles/ada' },
  bob: { id: 'u-bob', name: 'Bob', url: 'https://linear.app/acme/profiles/bob' },
  cyd: { id: 'u-cyd', name: 'Cyd', url: 'https://linear.app/acme/profiles/cyd' },
};

let linearApi: FakeApi;
let server: TestServer;
let ran: Map<string, number>;
const bodies = new Map<string, string>();
let nextComment = 1;

beforeEach(async () => {
  bodies.clear();
  linearApi = await fakeApi((call) => {
    const query = String(call.body?.query ?? '');
    const variables = call.body?.variables ?? {};
    const comment = (id: string) => ({
      id,
      body: bodies.get(id),
      createdAt: '2026-12-02T10:00:00.000Z',
      updatedAt: '2026-12-02T10:00:00.000Z',
      url: `https://linear.app/acme/issue/ENG-1#comment-${id}`,
      reactions: [],
      reactionData: {},
    });
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
    if (/query comment\(/.test(query)) return { body: { data: { comment: comment(variables.id) } } };
    return undefined;
  });
  ran = new Map();
  server = await startServer({
    agents: [channelAgent(ran)],
    channels: {
      linear: {
        agent: 'support',
        apiKey: 'lin_api_test',
        webhookSecret,
        userName: 'heed',
        apiUrl: `${linearApi.url}/graphql`,
      },
    },
    notify: { pollIntervalMs: 50, retry: { firstDelayMs: 50, maxDelayMs: 200 } },
  });
});
afterEach(async () => {
  await server.close();
  await linearApi.close();
});

let nextId = 100;
/** A comment in the thread of root comment `root` (a new thread when absent). */
function comment(from: (typeof people)[keyof typeof people], body: string, root?: string, at = Date.now()) {
  const id = `c-${nextId++}`;
  return {
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
      userId: from.id,
      user: from,
      createdAt: new Date(at).toISOString(),
      updatedAt: new Date(at).toISOString(),
    },
  };
}

function send(payload: unknown, signature?: string | null) {
  const body = JSON.stringify(payload);
  const signed = createHmac('sha256', webhookSecret).update(body).digest('hex');
  return fetch(`${server.url}/api/channels/linear/events`, {
    method: 'POST',
    headers: {
      'content-type': 'application/json',
      ...(signature === null ? {} : { 'linear-signature': signature ?? signed }),
    },
    body,
  });
}

const mutations = (name: string) =>
  linearApi.calls.filter((call: ApiCall) => String(call.body?.query ?? '').includes(`mutation ${name}`));
const posted = () => mutations('createComment').map((call) => call.body.variables.input.body as string);

describe('Linear', () => {
  it('a bad, missing or stale signature is 401 (where Linear itself answers 400) and records nothing', async () => {
    const payload = comment(people.ada, '@heed refund order 42');
    const forged = createHmac('sha256', 'not-the-secret').update(JSON.stringify(payload)).digest('hex');
    const stale = comment(people.ada, '@heed refund order 42', undefined, Date.now() - 5 * 60_000);
    for (const response of [await send(payload, forged), await send(payload, null), await send(stale)]) {
      expect(response.status).toBe(401);
      expect(((await response.json()) as { error: { code: string } }).error.code).toBe('unauthorized');
    }
    expect(await server.heed.listConversations({})).toEqual([]);
    expect(posted()).toEqual([]);
  });

  it('a mention pauses on an approval posted in its thread; /approve by another person runs the tool once, the reply comes, the comment says who; a late /deny runs nothing', async () => {
    const mention = comment(people.ada, '@heed please refund order 42');
    expect((await send(mention)).status).toBe(200);
    const root = mention.data.id;
    const [conversation] = await server.heed.listConversations({});
    expect(conversation).toMatchObject({ channel: `linear:iss-1:c:${root}` });
    expect((await send(mention)).status).toBe(200);

    await linearApi.until(() => posted().some((body) => body.includes('/approve')));
    const request = mutations('createComment').find((call) => call.body.variables.input.body.includes('/approve'))!;
    expect(request.headers.authorization).toBe('lin_api_test');
    expect(request.body.variables.input).toMatchObject({ issueId: 'iss-1', parentId: root });
    expect(request.body.variables.input.body).toContain('"orderId": 42');
    expect(request.body.variables.input.body).toMatch(/Approval needed: Run issue\\?_refund\?/);

    const snapshot = await server.heed.conversation(conversation.id).get();
    expect(snapshot.messages.filter((entry) => entry.role === 'user')).toHaveLength(1);
    const refused = await server.api('POST', `/api/conversations/${conversation.id}/messages`, {
      token: 'ada',
      body: { content: 'hi' },
    });
    expect(refused.body.error.code).toBe('channel_chat');

    expect((await send(comment(people.bob, '/approve', root))).status).toBe(200);
    await linearApi.until(() => posted().some((body) => body.includes('Done.')));
    expect(ran.get('issue_refund')).toBe(1);
    const [action] = await server.heed.conversation(conversation.id).actions();
    expect(action).toMatchObject({ status: 'resolved', resolvedBy: 'linear:u-bob', channel: 'linear' });

    await linearApi.until(() => mutations('updateComment').length === 1);
    const edit = mutations('updateComment')[0].body.variables;
    expect(edit.id).toBe('bot-1');
    expect(edit.input.body).toContain('Allowed by @bob');

    expect((await send(comment(people.cyd, '/deny too late', root))).status).toBe(200);
    await linearApi.until(() => posted().some((body) => body.includes('already settled')));
    expect(posted().find((body) => body.includes('already settled'))).toMatch(/cyd[\s\S]*Allowed by @bob/);
    expect(ran.get('issue_refund')).toBe(1);
  });

  it('a question with options is answered by /answer 2; typed questions by /answer id=value', async () => {
    const pick = comment(people.ada, '@heed pick a size');
    await send(pick);
    await linearApi.until(() => posted().some((body) => body.includes('/answer')));
    await send(comment(people.bob, '/answer 2', pick.data.id));
    const [conversation] = await server.heed.listConversations({});
    expect((await server.heed.conversation(conversation.id).actions())[0]).toMatchObject({
      status: 'resolved',
      resolvedBy: 'linear:u-bob',
      resolution: { answers: { size: ['l'] } },
    });
    await linearApi.until(() => posted().some((body) => body.includes('Done.')));

    const ask = comment(people.ada, '@heed ask me');
    await send(ask);
    await linearApi.until(() => posted().some((body) => body.includes('How many?')));
    await send(comment(people.bob, '/answer size=1 qty=3', ask.data.id));
    const conversations = await server.heed.listConversations({});
    const asked = conversations.find((entry) => entry.channel === `linear:iss-1:c:${ask.data.id}`)!;
    expect((await server.heed.conversation(asked.id).actions())[0]).toMatchObject({
      status: 'resolved',
      resolution: { answers: { size: ['s'], qty: ['3'] } },
    });
  });
});

describe('Linear: what an agent writes stays words', () => {
  it('links, addresses and @mentions in a question arrive escaped', async () => {
    await send(comment(people.ada, '@heed spoof'));
    await linearApi.until(() => posted().some((body) => body.includes('/answer')));
    expectInert(posted().find((body) => body.includes('/answer'))!);
  });
});
