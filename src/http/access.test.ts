import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseSse, supportAgent, tokens } from '../../test/http-fixtures.js';
import { readConversation } from '../../test/invariants.js';
import type { AuthConfig, HitlConfig } from '../config.js';
import { createHeed, type Heed } from '../heed.js';
import { sqliteStore } from '../store/sqlite/sqlite-store.js';
import { apiRoutes, createApp, type HeedApp } from './app.js';

/**
 * Who may do what, over every route the app serves (read from `apiRoutes()`, so a route added later
 * is held to the same rules): another user, an anonymous caller and an unknown token are refused as
 * designed and learn nothing; and a page's client tool output stays out of the log and the records.
 */

const dir = mkdtempSync(join(tmpdir(), 'heed-access-'));
// A load balancer asks /health/ready without a token.
const publicPaths = new Set(['/health', '/health/ready', '/api/openapi.json', '/api/docs']);
const routes = apiRoutes();
let counter = 0;

interface World {
  heed: Heed;
  app: HeedApp;
  dbPath: string;
  call(
    method: string,
    path: string,
    options?: { token?: string; body?: unknown; headers?: Record<string, string> },
  ): Promise<{ status: number; text: string; body: any }>;
}

async function world(auth: AuthConfig = { tokens }, hitl?: HitlConfig): Promise<World> {
  const dbPath = join(dir, `access-${counter++}.db`);
  const heed = createHeed({
    agents: [supportAgent(new Map())],
    store: sqliteStore({ path: dbPath }),
    sweepIntervalMs: 0,
    hitl,
  });
  const app = createApp(heed, { auth });
  const call: World['call'] = async (method, path, options = {}) => {
    const headers: Record<string, string> = { 'content-type': 'application/json', ...options.headers };
    if (options.token) headers.authorization = `Bearer ${options.token}`;
    const response = await app.request(path, {
      method,
      headers,
      body: options.body === undefined ? undefined : JSON.stringify(options.body),
    });
    const text = response.headers.get('content-type')?.startsWith('text/event-stream')
      ? (await response.body?.cancel(), '')
      : await response.text();
    let body: unknown;
    try {
      body = JSON.parse(text);
    } catch {
      body = undefined;
    }
    return { status: response.status, text, body };
  };
  return { heed, app, dbPath, call };
}

/** One of ada's conversations, paused on `content` ('refund', 'ask', 'page', 'link'). */
async function adaPaused(w: World, content: string): Promise<{ id: string; actionId: string; messageId: string }> {
  const { id } = (await w.call('POST', '/api/conversations', { token: 'ada', body: { agent: 'support' } })).body;
  const sent = (await w.call('POST', `/api/conversations/${id}/messages`, { token: 'ada', body: { content } })).body;
  return { id, actionId: sent.pendingActions[0].id, messageId: sent.messages[0].id };
}

/** Bodies each route is tried with: one it would accept from the owner, and an empty one. */
const validBodies: Record<string, (target: { actionKind: string }) => unknown> = {
  createConversation: () => ({ agent: 'support' }),
  sendMessage: () => ({ content: 'hello' }),
  resolveAction: () => ({ resolution: { type: 'approval', decision: 'allow' } }),
  answerLink: () => ({ resolution: { type: 'approval', decision: 'allow' } }),
  extendAction: () => ({ minutes: 60 }),
  extendLink: () => ({ minutes: 60 }),
  branchConversation: () => ({}),
};

afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('access matrix: every route, every other caller', () => {
  let w: World;
  let target: { id: string; actionId: string; messageId: string };
  beforeAll(async () => {
    w = await world();
    target = await adaPaused(w, 'refund');
    // Something remembered, so a route that lists or forgets it has something to leak.
    const remembered = await adaPaused(w, 'refund');
    await w.call('POST', `/api/conversations/${remembered.id}/actions/${remembered.actionId}`, {
      token: 'ada',
      body: { resolution: { type: 'approval', decision: 'allow', remember: true } },
    });
  });
  afterAll(() => w.heed.close());

  const fill = (path: string, ids: { id: string; actionId: string; messageId: string }) =>
    path
      .replace(':agent', 'support')
      .replace(':id', ids.id)
      .replace(':actionId', ids.actionId)
      .replace(':tool', 'issue_refund');
  const normalize = (text: string, ids: { id: string; actionId: string }) =>
    text.replaceAll(ids.id, '<id>').replaceAll(ids.actionId, '<action>');

  it("another user and an anonymous caller get, on each route naming ada's conversation, exactly what a made-up id gets: never a 2xx", async () => {
    const before = JSON.stringify(await readConversation(w.heed.store!, target.id));
    let tried = 0;
    // Same shape and length as a real id, so not even the length of a message differs.
    const ghost = {
      id: target.id.replace(/.$/, (last) => (last === 'x' ? 'y' : 'x')),
      actionId: target.actionId.replace(/.$/, (last) => (last === 'x' ? 'y' : 'x')),
      messageId: target.messageId,
    };
    for (const route of routes.filter((entry) => entry.spec.path.includes(':id'))) {
      const { method, path, operationId } = route.spec;
      const bodies =
        method === 'get' ? [undefined] : [validBodies[operationId]?.({ actionKind: 'approval' }) ?? {}, {}];
      for (const token of ['bob', undefined]) {
        for (const body of bodies) {
          for (const headers of [{}, { 'last-event-id': '0' }] as Array<Record<string, string>>) {
            const real = await w.call(method.toUpperCase(), fill(path, target), { token, body, headers });
            const made = await w.call(method.toUpperCase(), fill(path, ghost), { token, body, headers });
            const label = `${method.toUpperCase()} ${path} as ${token ?? 'anonymous'} with ${JSON.stringify(body)}`;
            expect([label, real.status]).toEqual([label, made.status]);
            expect([label, normalize(real.text, target)]).toEqual([label, normalize(made.text, ghost)]);
            // The AI SDK reads answer a chat that is not there as empty (a new useChat page), so someone else's looks the same.
            const readsEmpty = operationId === 'aiSdkChatMessages' || operationId === 'aiSdkChatResume';
            if (readsEmpty && real.status < 300)
              expect([label, real.text]).toEqual([label, operationId === 'aiSdkChatResume' ? '' : '{"messages":[]}']);
            else expect([label, [400, 401, 403, 404].includes(real.status)]).toEqual([label, true]);
            tried++;
          }
        }
      }
    }
    expect(tried).toBeGreaterThan(40);

    // A route that takes the conversation id in its body (the AI SDK chat: a new id starts a conversation)
    // must refuse someone else's id all the same.
    for (const route of routes.filter(
      (entry) =>
        entry.spec.body &&
        !entry.spec.path.includes(':id') &&
        'id' in ((entry.spec.body as { shape?: object }).shape ?? {}),
    )) {
      for (const token of ['bob', undefined]) {
        const body = {
          id: target.id,
          messages: [{ id: 'u1', role: 'user', parts: [{ type: 'text', text: 'hello' }] }],
        };
        const response = await w.call('POST', fill(route.spec.path, target), { token, body });
        const label = `POST ${route.spec.path} as ${token ?? 'anonymous'}`;
        expect([label, response.status]).toEqual([label, 404]);
        tried++;
      }
    }
    expect(JSON.stringify(await readConversation(w.heed.store!, target.id))).toBe(before);
    // And the owner still can.
    expect((await w.call('GET', `/api/conversations/${target.id}`, { token: 'ada' })).status).toBe(200);
  });

  it('an unknown token gets 401 on every route but the public ones; so does no token when auth is required', async () => {
    const strict = await world({ tokens, required: true });
    const owned = await adaPaused(strict, 'refund');
    for (const { spec } of routes) {
      const path = fill(spec.path, owned);
      const body =
        spec.method === 'get' ? undefined : (validBodies[spec.operationId]?.({ actionKind: 'approval' }) ?? {});
      for (const caller of [{ token: 'nope' }, {}, { headers: { authorization: 'Basic YWRhOmFkYQ==' } }]) {
        const response = await strict.call(spec.method.toUpperCase(), path, { ...caller, body });
        const label = `${spec.method.toUpperCase()} ${spec.path} ${JSON.stringify(caller)}`;
        if (publicPaths.has(spec.path)) expect([label, response.status]).toEqual([label, 200]);
        // Answer links need no sign-in (the token is the permission); a made-up one leads nowhere.
        else if (spec.path.startsWith('/api/links/'))
          expect([label, response.status, response.body?.error?.code]).toEqual([label, 404, 'not_found']);
        // Channels are signed by the workspace, not a bearer token: here unconfigured, so there is nothing there.
        else if (spec.path.startsWith('/api/channels/'))
          expect([label, response.status, response.body?.error?.code]).toEqual([label, 404, 'not_found']);
        else expect([label, response.status, response.body?.error?.code]).toEqual([label, 401, 'unauthorized']);
      }
    }
    expect((await strict.call('GET', `/api/conversations/${owned.id}`, { token: 'ada' })).status).toBe(200);
    await strict.heed.close();
  });

  it("lists, the inbox and live streams hold only the caller's own", async () => {
    const bobs = (await w.call('POST', '/api/conversations', { token: 'bob', body: { agent: 'support' } })).body
      .id as string;
    const adasIds = new Set(
      (await w.call('GET', '/api/conversations?limit=200', { token: 'ada' })).body.conversations.map(
        (c: { id: string }) => c.id,
      ),
    );
    for (const path of [
      '/api/conversations?limit=200',
      '/api/conversations?status=requires_action',
      '/api/inbox?limit=200',
      '/api/agents',
    ]) {
      for (const token of ['bob', undefined]) {
        const text = (await w.call('GET', path, { token })).text;
        for (const id of adasIds) expect(text).not.toContain(id);
      }
    }
    expect((await w.call('GET', '/api/inbox', {})).body.actions).toEqual([]);
    expect((await w.call('GET', '/api/conversations', {})).body.conversations).toEqual([]);

    // Bob follows his own stream while ada's conversations write: he sees only his.
    const controller = new AbortController();
    const response = await w.app.request(`/api/conversations/${bobs}/events/stream`, {
      headers: { authorization: 'Bearer bob' },
      signal: controller.signal,
    });
    const reader = response.body!.getReader();
    const ada = await adaPaused(w, 'refund');
    await w.call('POST', `/api/conversations/${ada.id}/actions/${ada.actionId}`, {
      token: 'ada',
      body: { resolution: { type: 'approval', decision: 'deny' } },
    });
    await w.call('POST', `/api/conversations/${bobs}/messages`, { token: 'bob', body: { content: 'hello' } });
    let text = '';
    while (!text.includes('turn.completed')) text += new TextDecoder().decode((await reader.read()).value);
    controller.abort();
    await reader.cancel().catch(() => undefined);
    const seen = parseSse(text).map((event) => JSON.parse(event.data) as { conversationId: string });
    expect(seen.length).toBeGreaterThan(0);
    expect(seen.every((event) => event.conversationId === bobs)).toBe(true);
    expect(text).not.toContain(ada.id);
  });

  it('with authorizeResolve, the hook decides who answers (403 for the owner, 404 for who may not see it); whom it allows reads the conversation, others still get 404', async () => {
    const hooked = await world(
      { tokens: { ...tokens, carol: { userId: 'carol' } } },
      { authorizeResolve: (caller) => caller?.data?.role === 'approver' },
    );
    const owned = await adaPaused(hooked, 'refund');
    const answer = (token: string) =>
      hooked.call('POST', `/api/conversations/${owned.id}/actions/${owned.actionId}`, {
        token,
        body: { resolution: { type: 'approval', decision: 'allow' } },
      });
    // Carol may neither see nor answer: the same 404 as for a conversation that does not exist.
    expect((await answer('carol')).body.error.code).toBe('not_found');
    expect((await answer('ada')).body.error.code).toBe('action_forbidden');
    // Bob may answer (the hook says so), so he reads it (DESIGN.md §18); carol still gets the 404.
    expect((await hooked.call('GET', `/api/conversations/${owned.id}`, { token: 'bob' })).status).toBe(200);
    expect((await hooked.call('GET', `/api/conversations/${owned.id}/actions`, { token: 'bob' })).status).toBe(200);
    expect((await hooked.call('GET', `/api/conversations/${owned.id}`, { token: 'carol' })).status).toBe(404);
    expect((await hooked.call('POST', `/api/conversations/${owned.id}/cancel`, { token: 'bob' })).status).toBe(404);
    const approved = await answer('bob');
    expect(approved.status).toBe(200);
    expect(approved.body.status).toBe('completed');
    const [action] = (await hooked.call('GET', `/api/conversations/${owned.id}/actions`, { token: 'ada' })).body
      .actions;
    expect(action).toMatchObject({ status: 'resolved', resolvedBy: 'bob' });
    await hooked.heed.close();
  });

  it("a client tool's access check refuses the wrong caller with 403 and consumes nothing", async () => {
    const page = await adaPaused(w, 'page');
    const refused = await w.call('POST', `/api/conversations/${page.id}/actions/${page.actionId}`, {
      token: 'ada',
      body: { resolution: { type: 'client_tool', output: { text: 'x' } } },
    });
    expect(refused.body.error.code).toBe('action_forbidden');
    expect(
      (await w.call('GET', `/api/conversations/${page.id}`, { token: 'ada' })).body.runtime.pendingActionIds,
    ).toEqual([page.actionId]);
  });
});

describe("a page's client tool output", () => {
  it('reaches the model as the tool result, and nothing else: not the event log (JSON or live), not any action record, not the stored rows', async () => {
    const w = await world();
    const secret = `s3cret-${Math.random().toString(36).slice(2)}`;
    const page = await adaPaused(w, 'page');
    const controller = new AbortController();
    const live = await w.app.request(`/api/conversations/${page.id}/events/stream`, {
      headers: { authorization: 'Bearer ada' },
      signal: controller.signal,
    });
    const reader = live.body!.getReader();

    const answered = await w.app.request(`/api/conversations/${page.id}/actions/${page.actionId}`, {
      method: 'POST',
      headers: { authorization: 'Bearer adaPage', 'content-type': 'application/json' },
      body: JSON.stringify({ resolution: { type: 'client_tool', output: { text: secret } }, stream: true }),
    });
    const streamed = await answered.text();
    expect(parseSse(streamed).at(-1)).toMatchObject({ event: 'turn.done' });
    let followed = '';
    while (!followed.includes('turn.completed')) followed += new TextDecoder().decode((await reader.read()).value);
    controller.abort();
    await reader.cancel().catch(() => undefined);

    const snapshot = (await w.call('GET', `/api/conversations/${page.id}`, { token: 'ada' })).body;
    const toolMessages = snapshot.messages.filter((message: { role: string }) => message.role === 'tool');
    expect(toolMessages).toHaveLength(1);
    expect(toolMessages[0].parts[0].output).toEqual({ type: 'json', value: { text: secret } });
    const asker = snapshot.messages.find((message: { id: string }) => message.id === page.messageId);
    expect(asker.metadata.actions[0].resolution).toEqual({
      type: 'client_tool',
      outputBytes: JSON.stringify({ text: secret }).length,
    });

    const elsewhere = {
      answerStream: streamedEvents(streamed),
      liveStream: followed,
      events: (await w.call('GET', `/api/conversations/${page.id}/events`, { token: 'ada' })).text,
      actions: (await w.call('GET', `/api/conversations/${page.id}/actions`, { token: 'ada' })).text,
      recordOfTheAsker: JSON.stringify(asker),
      inbox: (await w.call('GET', '/api/inbox', { token: 'ada' })).text,
      replayedAnswer: (
        await w.call('POST', `/api/conversations/${page.id}/actions/${page.actionId}`, {
          token: 'adaPage',
          body: { resolution: { type: 'client_tool', output: { text: 'again' } } },
        })
      ).text,
    };
    for (const [where, text] of Object.entries(elsewhere))
      expect([where, text.includes(secret)]).toEqual([where, false]);
    expect(elsewhere.replayedAnswer).toContain('action_not_pending');

    // The rows themselves: only the tool message holds it.
    await w.heed.close();
    const db = new Database(w.dbPath, { readonly: true });
    const like = `%${secret}%`;
    expect(db.prepare('SELECT count(*) FROM events WHERE data LIKE ?').pluck().get(like)).toBe(0);
    expect(
      db.prepare('SELECT count(*) FROM actions WHERE request LIKE ? OR resolution LIKE ?').pluck().get(like, like),
    ).toBe(0);
    expect(
      db.prepare('SELECT role FROM messages WHERE parts LIKE ? OR metadata LIKE ?').pluck().all(like, like),
    ).toEqual(['tool']);
    db.close();
  });
});

/** The streamed answer without its closing `turn.done` (which carries the turn's messages, the tool result included). */
function streamedEvents(text: string): string {
  return JSON.stringify(parseSse(text).filter((event) => event.event !== 'turn.done'));
}
