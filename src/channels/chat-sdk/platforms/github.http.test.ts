import { createHmac } from 'node:crypto';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { startServer, type TestServer } from '../../../../test/http-fixtures.js';
import { channelAgent, expectInert } from '../../../../test/channels/channel-agent.js';
import { fakeApi, type ApiCall, type FakeApi } from '../../../../test/channels/fake-api.js';

/**
 * GitHub end to end (docs/channels.md): Heed's endpoint gets `issue_comment` webhooks signed with
 * `X-Hub-Signature-256`, and talks to a local fake of the REST API (`channels.github.apiUrl`). GitHub has
 * no buttons: people answer with comment commands.
 */

const webhookSecret = 'github-webhook-secret-for-tests';
const bot = { id: 999, login: 'heed-bot', type: 'Bot' };
const people = {
  ada: { id: 111, login: 'ada', type: 'User' },
  bob: { id: 222, login: 'bob', type: 'User' },
  cyd: { id: 333, login: 'cyd', type: 'User' },
};
const repository = { id: 1, name: 'shop', full_name: 'acme/shop', owner: { id: 5, login: 'acme' } };

let githubApi: FakeApi;
let server: TestServer;
let ran: Map<string, number>;
let nextCommentId: number;

beforeEach(async () => {
  nextCommentId = 9000;
  githubApi = await fakeApi((call) => {
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
  ran = new Map();
  server = await startServer({
    agents: [channelAgent(ran)],
    channels: {
      github: { agent: 'support', token: 'ghp_test', webhookSecret, userName: 'heed-bot', apiUrl: githubApi.url },
    },
    notify: { pollIntervalMs: 50, retry: { firstDelayMs: 50, maxDelayMs: 200 } },
  });
});
afterEach(async () => {
  await server.close();
  await githubApi.close();
});

let nextId = 100;
function comment(from: (typeof people)[keyof typeof people], body: string, id = nextId++) {
  return {
    action: 'created',
    issue: { number: 7, title: 'Refund order 42', user: people.ada },
    comment: {
      id,
      body,
      user: from,
      created_at: '2026-12-02T10:00:00Z',
      updated_at: '2026-12-02T10:00:00Z',
      html_url: `https://github.com/acme/shop/issues/7#issuecomment-${id}`,
    },
    repository,
    sender: from,
  };
}

function send(payload: unknown, signature?: string) {
  const body = JSON.stringify(payload);
  return fetch(`${server.url}/api/channels/github/events`, {
    method: 'POST',
    headers: {
      'content-type': 'application/json',
      'x-github-event': 'issue_comment',
      'x-github-delivery': `d-${nextId++}`,
      'x-hub-signature-256': signature ?? `sha256=${createHmac('sha256', webhookSecret).update(body).digest('hex')}`,
    },
    body,
  });
}

const posts = () => githubApi.calls.filter((call) => call.method === 'POST' && call.path.endsWith('/comments'));
const edits = () => githubApi.calls.filter((call) => call.method === 'PATCH');
const bodies = () => posts().map((call) => call.body.body as string);
const request = (): ApiCall => posts().find((call) => /\/approve|\/answer/.test(call.body.body))!;

describe('GitHub', () => {
  it('a bad or missing signature is 401 and records nothing', async () => {
    const payload = comment(people.ada, '@heed-bot refund order 42');
    const wrong = `sha256=${createHmac('sha256', 'not-the-secret').update(JSON.stringify(payload)).digest('hex')}`;
    for (const signature of [wrong, 'sha256=00', '']) {
      const refused = await send(payload, signature);
      expect(refused.status).toBe(401);
      expect(((await refused.json()) as { error: { code: string } }).error.code).toBe('unauthorized');
    }
    expect(await server.heed.listConversations({})).toEqual([]);
    expect(posts()).toEqual([]);
  });

  it('a mention pauses on an approval posted with its tool and arguments; /approve by another person runs the tool once, the reply comes, the comment says who; a late /deny runs nothing', async () => {
    const mention = comment(people.ada, '@heed-bot please refund order 42');
    expect((await send(mention)).status).toBe(200);
    const [conversation] = await server.heed.listConversations({});
    expect(conversation).toMatchObject({ channel: 'github:acme/shop:issue:7' });
    // GitHub redelivers a webhook it thinks was lost: the same comment is recorded once.
    expect((await send(mention)).status).toBe(200);

    await githubApi.until(() => posts().some((call) => call.body.body.includes('/approve')));
    expect(request().path).toBe('/repos/acme/shop/issues/7/comments');
    expect(request().headers.authorization).toBe('token ghp_test');
    expect(request().body.body).toContain('Approval needed: Run issue\\_refund?');
    expect(request().body.body).toContain('"orderId": 42');
    expect(request().body.body).toContain('`/deny <why>`');

    const snapshot = await server.heed.conversation(conversation.id).get();
    expect(snapshot.messages.filter((entry) => entry.role === 'user')).toHaveLength(1);
    const refused = await server.api('POST', `/api/conversations/${conversation.id}/messages`, {
      token: 'ada',
      body: { content: 'hi' },
    });
    expect(refused.body.error.code).toBe('channel_chat');

    expect((await send(comment(people.bob, '/approve'))).status).toBe(200);
    await githubApi.until(() => bodies().some((body) => body.includes('Done.')));
    expect(ran.get('issue_refund')).toBe(1);
    const [action] = await server.heed.conversation(conversation.id).actions();
    expect(action).toMatchObject({ status: 'resolved', resolvedBy: 'github:222', channel: 'github' });

    await githubApi.until(() => edits().length === 1);
    expect(edits()[0].path).toBe(`/repos/acme/shop/issues/comments/${request().answer.id}`);
    expect(edits()[0].body.body).toContain('Allowed by @bob');
    expect(edits()[0].body.body).not.toContain('/approve');

    expect((await send(comment(people.cyd, '/deny too late'))).status).toBe(200);
    await githubApi.until(() => bodies().some((body) => body.includes('already settled')));
    expect(bodies().find((body) => body.includes('already settled'))).toMatch(/cyd[\s\S]*Allowed by @bob/);
    expect(ran.get('issue_refund')).toBe(1);
  });

  it('/deny <why> denies with the reason; the tool never runs', async () => {
    await send(comment(people.ada, '@heed-bot refund please'));
    await githubApi.until(() => posts().some((call) => call.body.body.includes('/approve')));
    await send(comment(people.bob, '/deny not this order'));
    const [conversation] = await server.heed.listConversations({});
    const [action] = await server.heed.conversation(conversation.id).actions();
    expect(action).toMatchObject({
      status: 'resolved',
      resolvedBy: 'github:222',
      resolution: { decision: 'deny', comment: 'not this order' },
    });
    await githubApi.until(() => edits().length === 1);
    expect(edits()[0].body.body).toContain('Denied by @bob: “not this order”');
    expect(ran.get('issue_refund')).toBeUndefined();
  });

  it('a question with options is answered by /answer 2; typed questions by /answer id=value', async () => {
    await send(comment(people.ada, '@heed-bot pick a size'));
    await githubApi.until(() => posts().some((call) => call.body.body.includes('/answer')));
    expect(request().body.body).toMatch(/1\. Small\n2\. Large/);
    await send(comment(people.bob, '/answer 2'));
    const [first] = await server.heed.listConversations({});
    expect((await server.heed.conversation(first.id).actions())[0]).toMatchObject({
      status: 'resolved',
      resolution: { answers: { size: ['l'] } },
    });
    await githubApi.until(() => edits().length === 1);
    expect(edits()[0].body.body).toMatch(/Answered by @bob[\s\S]*Large/);
    await githubApi.until(() => bodies().some((body) => body.includes('Done.')));

    await send(comment(people.ada, '@heed-bot ask me'));
    await githubApi.until(() => bodies().some((body) => body.includes('How many?')));
    // 12 is over the question's max of 9: refused by the normal order, said in a comment naming bob.
    await send(comment(people.bob, '/answer size=1 qty=12'));
    await githubApi.until(() => bodies().some((body) => body.startsWith('@bob') && /9/.test(body)));
    await send(comment(people.bob, '/answer size=1 qty=3'));
    const actions = await server.heed.conversation(first.id).actions();
    expect(actions[1]).toMatchObject({
      status: 'resolved',
      resolvedBy: 'github:222',
      resolution: { answers: { size: ['s'], qty: ['3'] } },
    });
  });

  it('access decides who may answer: a refused person gets a note and settles nothing; an allowed one settles it', async () => {
    const seen: unknown[] = [];
    const own = await startServer({
      agents: [channelAgent(ran)],
      channels: {
        github: {
          agent: 'support',
          token: 'ghp_test',
          webhookSecret,
          userName: 'heed-bot',
          apiUrl: githubApi.url,
          access: (user) => {
            seen.push(user);
            return user.userName === 'bob';
          },
        },
      },
      notify: { pollIntervalMs: 50, retry: { firstDelayMs: 50, maxDelayMs: 200 } },
    });
    const post = (payload: unknown) => {
      const body = JSON.stringify(payload);
      return fetch(`${own.url}/api/channels/github/events`, {
        method: 'POST',
        headers: {
          'content-type': 'application/json',
          'x-github-event': 'issue_comment',
          'x-hub-signature-256': `sha256=${createHmac('sha256', webhookSecret).update(body).digest('hex')}`,
        },
        body,
      });
    };
    await post(comment(people.ada, '@heed-bot refund please'));
    await githubApi.until(() => posts().some((call) => call.body.body.includes('/approve')));
    expect((await post(comment(people.cyd, '/approve'))).status).toBe(200);
    await githubApi.until(() => bodies().some((body) => body.startsWith('@cyd')));
    const [conversation] = await own.heed.listConversations({});
    expect((await own.heed.conversation(conversation.id).actions())[0].status).toBe('pending');
    expect(ran.get('issue_refund')).toBeUndefined();
    expect(seen[0]).toEqual({ platform: 'github', id: '333', userName: 'cyd' });
    await post(comment(people.bob, '/approve'));
    expect((await own.heed.conversation(conversation.id).actions())[0]).toMatchObject({
      status: 'resolved',
      resolvedBy: 'github:222',
    });
    await own.close();
  });
});

describe('GitHub: what an agent writes stays words', () => {
  it('links, addresses and @mentions in a question arrive escaped', async () => {
    await send(comment(people.ada, '@heed-bot spoof'));
    await githubApi.until(() => posts().some((call) => call.body.body.includes('/answer')));
    expectInert(bodies().find((body) => body.includes('/answer'))!);
  });

  it('an address that tries to end its markdown link early stays one link, to where it says', async () => {
    await send(comment(people.ada, '@heed-bot lure'));
    await githubApi.until(() => bodies().some((body) => body.includes('/done')));
    const card = bodies().find((body) => body.includes('/done'))!;
    // The Open link goes where the request says, all of it inside the link's target (`| > < ( ) [ ]` and spaces encoded).
    const target =
      'https://good.example/a%7CPay%20here%3E%20%3C!channel%3E%20%3Chttps://evil.example/b%7Cclick%29%20%5Bx%5D%28https://evil.example/c';
    const open = `[Open](${target})`;
    expect(card).toContain(open);
    expectInert(card.replace(open, ''));
  });
});
