import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { startServer, type TestServer } from '../../test/http-fixtures.js';
import type { AgentConfig, HeedConfig } from '../config.js';
import { LinkSigner } from '../notify/links.js';
import { scriptedModel } from '../testing/scripted-model.js';
import { tool } from '../tool.js';

/**
 * The table of DESIGN.md §18 ("One access policy"; docs/http.md#who-may-do-what), cell by cell over HTTP.
 * For each role, each verb is one real request against a conversation paused for that role: a fresh one
 * per cell, since answering, cancelling and sending change it. The row of what came back must be the
 * table's row. Channel participants have their cells in src/channels/chat-sdk/platforms/telegram-people.http.test.ts,
 * against a conversation that lives in a (fake) Telegram group.
 */

const linkSecret = 'access-table-link-secret-0123456789abcdef';

/**
 * ada owns; bob is named by id, cat through group finance; dan holds ada's delegation, erin bob's; fay is
 * assigned a request; gus is anybody signed in; root is an admin; olive is on call (the hook's approver).
 */
const people = {
  ada: { userId: 'ada' },
  bob: { userId: 'bob' },
  cat: { userId: 'cat', groups: ['finance'] },
  dan: { userId: 'dan' },
  erin: { userId: 'erin' },
  fay: { userId: 'fay' },
  gus: { userId: 'gus' },
  root: { userId: 'root' },
  olive: { userId: 'olive', groups: ['oncall'] },
};

/** "refund": an approval with no policy (the owner answers). "pay": bob and group finance vote, two allows decide. */
function tableAgent(): AgentConfig {
  const amount = z.object({ amount: z.number() });
  return {
    name: 'support',
    description: 'Access table',
    model: scriptedModel(({ messages }) => {
      const last = messages.at(-1);
      if (last?.role !== 'user') return { text: 'Done.' };
      const text = last.content.map((part) => (part.type === 'text' ? part.text : '')).join('');
      if (text === 'refund' || text === 'pay') return { toolCalls: [{ toolName: text, input: { amount: 5 } }] };
      return { text: 'Hello.' };
    }),
    tools: {
      refund: tool({ inputSchema: amount, needsApproval: true, execute: async () => ({ refunded: true }) }),
      pay: tool({
        inputSchema: amount,
        needsApproval: true,
        approval: { approvers: ['bob', 'group:finance'], required: 2 },
        execute: async () => ({ paid: true }),
      }),
    },
  };
}

type Target = 'refund' | 'pay' | 'request';
interface Paused {
  id: string;
  actionId: string;
}

const verbs = [
  'read',
  'actions',
  'events',
  'stream',
  'list',
  'inbox',
  'answer',
  'extend',
  'send',
  'cancel',
  'branch',
] as const;
type Verb = (typeof verbs)[number];
type Row = Record<Verb, number | 'listed' | 'absent'>;

/** A role: who asks (a token; none: anonymous), about which paused conversation, and, for the link holder, through a link. */
interface Role {
  name: string;
  token?: string;
  target: Target;
  link?: true;
  expected: Row;
}

/** Reads, writes as the owner, and the two lists, for someone who may read and answer but not write. */
const answerer: Row = {
  read: 200,
  actions: 200,
  events: 200,
  stream: 200,
  list: 'absent',
  inbox: 'listed',
  answer: 200,
  extend: 200,
  send: 404,
  cancel: 404,
  branch: 404,
};
const nobody: Row = {
  read: 404,
  actions: 404,
  events: 404,
  stream: 404,
  list: 'absent',
  inbox: 'absent',
  answer: 404,
  extend: 404,
  send: 404,
  cancel: 404,
  branch: 404,
};
/** The owner: everything; a message while the pause waits is refused by the pause (409), past the access check. */
const owner: Row = { ...answerer, list: 'listed', send: 409, cancel: 200, branch: 201 };

const roles: Role[] = [
  { name: 'owner', token: 'ada', target: 'refund', expected: owner },
  { name: 'approver by id', token: 'bob', target: 'pay', expected: answerer },
  { name: 'approver by group', token: 'cat', target: 'pay', expected: answerer },
  { name: 'delegate of the owner', token: 'dan', target: 'refund', expected: answerer },
  { name: 'delegate of an approver', token: 'erin', target: 'pay', expected: answerer },
  { name: 'assignee of a request', token: 'fay', target: 'request', expected: answerer },
  // The link names one action: it reads and answers that one (GET/POST /api/links/:token, …/extend), nothing else.
  { name: 'link holder', target: 'refund', link: true, expected: { ...nobody, read: 200, answer: 200, extend: 200 } },
  { name: 'another signed-in person', token: 'gus', target: 'pay', expected: nobody },
  { name: 'anonymous', target: 'pay', expected: nobody },
  // An admin reads every conversation; answering is the approvers' (403: they see it), writing the owner's.
  {
    name: 'admin',
    token: 'root',
    target: 'pay',
    expected: { ...nobody, read: 200, actions: 200, events: 200, stream: 200, answer: 403, extend: 403 },
  },
];

/** With `hitl.authorizeResolve` allowing ada and the oncall group: it decides who answers, and so who reads. */
const hookedRoles: Role[] = [
  { name: 'owner (the hook allows her)', token: 'ada', target: 'refund', expected: owner },
  { name: 'on-call approver (authorizeResolve)', token: 'olive', target: 'refund', expected: answerer },
  { name: 'another signed-in person (the hook refuses)', token: 'gus', target: 'refund', expected: nobody },
];

async function pause(server: TestServer, target: Target): Promise<Paused> {
  if (target === 'request') {
    const made = await server.api('POST', '/api/requests', {
      token: 'ada',
      body: { request: { kind: 'approval', title: 'Deploy?' }, assignees: ['fay'] },
    });
    expect(made.status).toBe(201);
    return { id: made.body.conversationId, actionId: made.body.id };
  }
  const created = await server.api('POST', '/api/conversations', { token: 'ada', body: { agent: 'support' } });
  const sent = await server.api('POST', `/api/conversations/${created.body.id}/messages`, {
    token: 'ada',
    body: { content: target },
  });
  expect(sent.body.status).toBe('requires_action');
  return { id: created.body.id, actionId: sent.body.pendingActions[0].id };
}

/** The status of a live stream's response (its body is let go at once). */
async function streamStatus(server: TestServer, path: string, token: string | undefined): Promise<number> {
  const controller = new AbortController();
  const headers: Record<string, string> = token ? { authorization: `Bearer ${token}` } : {};
  const response = await server.fetch(new Request(`${server.url}${path}`, { headers, signal: controller.signal }));
  controller.abort();
  await response.body?.cancel().catch(() => undefined);
  return response.status;
}

/** One cell: `verb` done by `role` on a conversation paused for it. */
async function cell(server: TestServer, role: Role, verb: Verb): Promise<Row[Verb]> {
  const { id, actionId } = await pause(server, role.target);
  const token = role.token;
  const base = `/api/conversations/${id}`;
  const resolution = { type: 'approval', decision: 'allow' };
  if (role.link) {
    const link = new LinkSigner(linkSecret).sign({
      conversationId: id,
      actionId,
      recipient: 'ada',
      expiresAt: Date.now() + 3_600_000,
    });
    if (verb === 'read') return (await server.api('GET', `/api/links/${link}`)).status;
    if (verb === 'answer') return (await server.api('POST', `/api/links/${link}`, { body: { resolution } })).status;
    if (verb === 'extend')
      return (await server.api('POST', `/api/links/${link}/extend`, { body: { minutes: 120 } })).status;
    // Everything else: the holder has no sign-in, only the link.
  }
  const status = async (method: string, path: string, body?: unknown) =>
    (await server.api(method, path, { token, ...(body !== undefined ? { body } : {}) })).status;
  switch (verb) {
    case 'read':
      return status('GET', base);
    case 'actions':
      return status('GET', `${base}/actions`);
    case 'events':
      return status('GET', `${base}/events`);
    case 'stream':
      return streamStatus(server, `${base}/events/stream`, token);
    case 'list': {
      const listed = (await server.api('GET', '/api/conversations', { token })).body.conversations as { id: string }[];
      return listed.some((entry) => entry.id === id) ? 'listed' : 'absent';
    }
    case 'inbox': {
      const inbox = (await server.api('GET', '/api/inbox?limit=200', { token })).body.actions as { id: string }[];
      return inbox.some((entry) => entry.id === actionId) ? 'listed' : 'absent';
    }
    case 'answer':
      return status('POST', `${base}/actions/${actionId}`, { resolution });
    case 'extend':
      return status('POST', `${base}/actions/${actionId}/extend`, { minutes: 120 });
    case 'send':
      return status('POST', `${base}/messages`, { content: 'hello' });
    case 'cancel':
      return status('POST', `${base}/cancel`);
    case 'branch':
      return status('POST', `${base}/branch`, {});
  }
}

async function row(server: TestServer, role: Role): Promise<Row> {
  const cells = {} as Row;
  for (const verb of verbs) cells[verb] = await cell(server, role, verb);
  return cells;
}

async function tableServer(hitl: HeedConfig['hitl'] = {}): Promise<TestServer> {
  const server = await startServer({
    agents: [tableAgent()],
    auth: { tokens: people, admins: ['root'] },
    hitl: { timeoutMinutes: 60, ...hitl },
    notify: { linkSecret },
    // A fresh conversation per cell: more than a minute's default allowance.
    limits: { conversationsPerMinute: 0 },
  });
  for (const [from, to] of [
    ['ada', 'dan'],
    ['bob', 'erin'],
  ]) {
    expect((await server.api('PUT', '/api/me/delegation', { token: from, body: { to } })).status).toBe(200);
  }
  return server;
}

describe('who may do what (DESIGN.md §18), every role × every verb over HTTP', () => {
  let server: TestServer;
  beforeAll(async () => {
    server = await tableServer();
  });
  afterAll(async () => {
    await server?.close();
  });

  for (const role of roles) {
    it(role.name, async () => {
      expect(await row(server, role)).toEqual(role.expected);
    });
  }

  it("bug: a delegate's Extend (the console shows it) moves the deadline as their answer would, and says who did it", async () => {
    for (const [token, target] of [
      ['dan', 'refund'],
      ['erin', 'pay'],
    ] as const) {
      const { id, actionId } = await pause(server, target);
      const extended = await server.api('POST', `/api/conversations/${id}/actions/${actionId}/extend`, {
        token,
        body: { minutes: 240 },
      });
      expect(extended.status).toBe(200);
      expect(Date.parse(extended.body.action.expiresAt) - Date.now()).toBeGreaterThan(230 * 60_000);
      const events = (await server.api('GET', `/api/conversations/${id}/events`, { token })).body.events as {
        type: string;
        data: { by?: string };
      }[];
      expect(events.find((event) => event.type === 'action.extended')?.data.by).toBe(token);
    }
  });
});

describe('who may do what with hitl.authorizeResolve set', () => {
  let server: TestServer;
  beforeAll(async () => {
    server = await tableServer({
      authorizeResolve: (caller) => caller?.userId === 'ada' || caller?.groups?.includes('oncall') === true,
    });
  });
  afterAll(async () => {
    await server?.close();
  });

  for (const role of hookedRoles) {
    it(role.name, async () => {
      expect(await row(server, role)).toEqual(role.expected);
    });
  }

  it('bug: the on-call approver the hook allows reads what they answer and finds it in their inbox, before and after answering', async () => {
    const { id, actionId } = await pause(server, 'refund');
    const inbox = (await server.api('GET', '/api/inbox', { token: 'olive' })).body.actions as { id: string }[];
    expect(inbox.map((entry) => entry.id)).toContain(actionId);
    const read = await server.api('GET', `/api/conversations/${id}`, { token: 'olive' });
    expect(read.status).toBe(200);
    expect(read.body.pendingActions.map((entry: { id: string }) => entry.id)).toEqual([actionId]);
    const answered = await server.api('POST', `/api/conversations/${id}/actions/${actionId}`, {
      token: 'olive',
      body: { resolution: { type: 'approval', decision: 'allow' } },
    });
    expect(answered.status).toBe(200);
    // Answered: gone from the inbox, still readable (they answered it), the answer recorded as theirs.
    const after = (await server.api('GET', '/api/inbox', { token: 'olive' })).body.actions as { id: string }[];
    expect(after.map((entry) => entry.id)).not.toContain(actionId);
    const actions = await server.api('GET', `/api/conversations/${id}/actions`, { token: 'olive' });
    expect(actions.status).toBe(200);
    expect(actions.body.actions[0]).toMatchObject({ id: actionId, status: 'resolved', resolvedBy: 'olive' });
    // Someone the hook refuses learns nothing of it.
    expect((await server.api('GET', `/api/conversations/${id}`, { token: 'gus' })).status).toBe(404);
  });
});
