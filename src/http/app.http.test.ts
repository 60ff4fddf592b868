import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startServer, type TestServer } from '../../test/http-fixtures.js';
import {
  actionsResponse,
  agentsResponse,
  cancelResponse,
  conversationsResponse,
  errorBody,
  eventsResponse,
  healthResponse,
  inboxResponse,
  rememberedToolsResponse,
  snapshot as snapshotSchema,
  turnResult,
} from '../protocol/responses.js';
import { conversationView } from '../protocol/views.js';

// Every route of docs/http.md#routes, driven over real loopback HTTP. Each JSON answer is also parsed with the
// protocol schema its route documents (strict objects): a field the schema leaves out, or gets wrong, fails here.
describe('HTTP API routes', () => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startServer();
  });
  afterAll(async () => {
    await server.close();
  });

  const newConversation = async (token = 'ada') =>
    conversationView.parse(
      (await server.api('POST', '/api/conversations', { token, body: { agent: 'support' } })).body,
    );

  it('GET /health and GET /api/agents', async () => {
    expect(await server.api('GET', '/health')).toMatchObject({ status: 200, body: { ok: true } });
    healthResponse.parse((await server.api('GET', '/health')).body);
    const agents = await server.api('GET', '/api/agents', { token: 'ada' });
    expect(agents.status).toBe(200);
    agentsResponse.parse(agents.body);
    expect(agents.body.agents).toEqual([
      {
        name: 'support',
        description: 'Test agent',
        capabilities: { toolApproval: true, questions: true, intake: false, clientTools: true },
      },
    ]);
  });

  it('POST /api/conversations creates a conversation owned by the caller (201); GET lists and filters', async () => {
    const created = await server.api('POST', '/api/conversations', {
      token: 'ada',
      body: { agent: 'support', metadata: { topic: 'x' } },
    });
    expect(created.status).toBe(201);
    expect(created.body).toMatchObject({ agent: 'support', ownerId: 'ada', status: 'idle', metadata: { topic: 'x' } });
    conversationView.parse(created.body);
    const list = await server.api('GET', '/api/conversations?agent=support&status=idle', { token: 'ada' });
    expect(list.status).toBe(200);
    conversationsResponse.parse(list.body);
    expect(list.body.conversations.map((c: { id: string }) => c.id)).toContain(created.body.id);
    expect(list.body.conversations.every((c: { ownerId: string }) => c.ownerId === 'ada')).toBe(true);
    const paused = await server.api('GET', '/api/conversations?status=requires_action', { token: 'ada' });
    expect(paused.body.conversations.map((c: { id: string }) => c.id)).not.toContain(created.body.id);
  });

  it('approval: message pauses, GET shows the pending action, the answer continues the turn once', async () => {
    const conversation = await newConversation();
    const sent = await server.api('POST', `/api/conversations/${conversation.id}/messages`, {
      token: 'ada',
      body: { content: 'refund please' },
    });
    expect(sent.status).toBe(200);
    expect(sent.body.status).toBe('requires_action');
    turnResult.parse(sent.body);
    const [action] = sent.body.pendingActions;
    expect(action).toMatchObject({
      kind: 'approval',
      toolName: 'issue_refund',
      status: 'pending',
      args: { orderId: 42, amount: 5 },
    });
    expect(action.argsSchema.properties.amount).toMatchObject({ type: 'number', maximum: 500 });

    const snapshot = await server.api('GET', `/api/conversations/${conversation.id}`, { token: 'ada' });
    expect(snapshot.status).toBe(200);
    snapshotSchema.parse(snapshot.body);
    expect(snapshot.body.runtime).toEqual({ status: 'requires_action', pendingActionIds: [action.id] });
    expect(snapshot.body.pendingActions.map((a: { id: string }) => a.id)).toEqual([action.id]);
    const asking = snapshot.body.messages.find(
      (m: { metadata?: { requiresAction?: boolean } }) => m.metadata?.requiresAction,
    );
    expect(asking.metadata.actions[0].id).toBe(action.id);

    const before = server.ran.get('issue_refund') ?? 0;
    const answered = await server.api('POST', `/api/conversations/${conversation.id}/actions/${action.id}`, {
      token: 'ada',
      body: { resolution: { type: 'approval', decision: 'allow', approvedArgs: { orderId: 42, amount: 3 } } },
    });
    expect(answered.status).toBe(200);
    expect(answered.body.status).toBe('completed');
    turnResult.parse(answered.body);
    expect(answered.body.messages.at(-1).parts).toEqual([{ type: 'text', text: 'Done.' }]);
    expect(answered.body.messages[0].parts[0].output).toEqual({ type: 'json', value: { refunded: 3 } });
    expect(server.ran.get('issue_refund')).toBe(before + 1);

    const after = await server.api('GET', `/api/conversations/${conversation.id}`, { token: 'ada' });
    snapshotSchema.parse(after.body);
    expect(after.body.pendingActions).toBeUndefined();
    expect(after.body.runtime).toEqual({ status: 'idle', pendingActionIds: [] });

    const actions = await server.api('GET', `/api/conversations/${conversation.id}/actions`, { token: 'ada' });
    actionsResponse.parse(actions.body);
    expect(actions.body.actions[0]).toMatchObject({
      id: action.id,
      status: 'resolved',
      resolvedBy: 'ada',
      resolution: { decision: 'allow', approvedArgs: { amount: 3 } },
    });
  });

  it('question: answers by label, defaults filled by the server, the model reads labels', async () => {
    const conversation = await newConversation();
    const sent = await server.api('POST', `/api/conversations/${conversation.id}/messages`, {
      token: 'ada',
      body: { content: 'ask me' },
    });
    turnResult.parse(sent.body);
    const [action] = sent.body.pendingActions;
    expect(action.kind).toBe('question');
    expect(action.questions.map((q: { id: string }) => q.id)).toEqual(['size', 'qty']);
    const answered = await server.api('POST', `/api/conversations/${conversation.id}/actions/${action.id}`, {
      token: 'ada',
      body: { resolution: { type: 'question', answers: { size: 'Large' } } },
    });
    expect(answered.status).toBe(200);
    expect(answered.body.status).toBe('completed');
    turnResult.parse(answered.body);
    expect(answered.body.messages[0].parts[0].output.value).toContain('Which size? → Large');
    const [settled] = actionsResponse.parse(
      (await server.api('GET', `/api/conversations/${conversation.id}/actions`, { token: 'ada' })).body,
    ).actions;
    expect(settled).toMatchObject({
      status: 'resolved',
      resolution: { answers: { size: ['l'], qty: ['1'] } },
      defaulted: ['qty'],
    });
  });

  it('client tool: the page answers with output; the record keeps only its size', async () => {
    const conversation = await newConversation('adaPage');
    const sent = await server.api('POST', `/api/conversations/${conversation.id}/messages`, {
      token: 'adaPage',
      body: { content: 'read the page' },
    });
    const [action] = turnResult.parse(sent.body).pendingActions!;
    expect(action).toMatchObject({ kind: 'client_tool', clientKind: 'page', args: { purpose: 'test' } });
    const answered = await server.api('POST', `/api/conversations/${conversation.id}/actions/${action.id}`, {
      token: 'adaPage',
      body: { resolution: { type: 'client_tool', output: { text: 'secret selection' } } },
    });
    expect(answered.body.status).toBe('completed');
    turnResult.parse(answered.body);
    const events = await server.api('GET', `/api/conversations/${conversation.id}/events`, { token: 'adaPage' });
    expect(events.text).not.toContain('secret selection');
    eventsResponse.parse(events.body);
    const [settled] = actionsResponse.parse(
      (await server.api('GET', `/api/conversations/${conversation.id}/actions`, { token: 'adaPage' })).body,
    ).actions;
    expect(settled.resolution).toEqual({
      type: 'client_tool',
      outputBytes: JSON.stringify({ text: 'secret selection' }).length,
    });
  });

  it('url: a tool asks to open an address; accept lets it finish', async () => {
    const conversation = await newConversation();
    const sent = await server.api('POST', `/api/conversations/${conversation.id}/messages`, {
      token: 'ada',
      body: { content: 'link my account' },
    });
    const [action] = turnResult.parse(sent.body).pendingActions!;
    expect(action).toMatchObject({ kind: 'url', url: 'https://example.com/connect' });
    const answered = await server.api('POST', `/api/conversations/${conversation.id}/actions/${action.id}`, {
      token: 'ada',
      body: { resolution: { type: 'url', decision: 'accept' } },
    });
    expect(answered.body.status).toBe('completed');
    turnResult.parse(answered.body);
    expect(answered.body.messages[0].parts[0].output).toEqual({ type: 'json', value: { outcome: 'accept' } });
    actionsResponse.parse(
      (await server.api('GET', `/api/conversations/${conversation.id}/actions`, { token: 'ada' })).body,
    );
  });

  it('POST /cancel closes an open pause; on an idle conversation it changes nothing', async () => {
    const conversation = await newConversation();
    await server.api('POST', `/api/conversations/${conversation.id}/messages`, {
      token: 'ada',
      body: { content: 'refund' },
    });
    const cancelled = await server.api('POST', `/api/conversations/${conversation.id}/cancel`, { token: 'ada' });
    expect(cancelled).toMatchObject({ status: 200, body: { status: 'idle', cancelled: true } });
    cancelResponse.parse(cancelled.body);
    const [action] = actionsResponse.parse(
      (await server.api('GET', `/api/conversations/${conversation.id}/actions`, { token: 'ada' })).body,
    ).actions;
    expect(action.status).toBe('cancelled');
    expect((await server.api('POST', `/api/conversations/${conversation.id}/cancel`, { token: 'ada' })).body).toEqual({
      status: 'idle',
      cancelled: false,
    });
  });

  it('GET /events pages through the log', async () => {
    const conversation = await newConversation();
    await server.api('POST', `/api/conversations/${conversation.id}/messages`, {
      token: 'ada',
      body: { content: 'hi' },
    });
    const all = await server.api('GET', `/api/conversations/${conversation.id}/events`, { token: 'ada' });
    eventsResponse.parse(all.body);
    expect(all.body.hasMore).toBe(false);
    const seqs = all.body.events.map((e: { seq: number }) => e.seq);
    expect(seqs).toEqual(seqs.map((_: number, i: number) => i + 1));
    expect(all.body.events.at(-1).type).toBe('turn.completed');
    const first = await server.api('GET', `/api/conversations/${conversation.id}/events?after=0&limit=2`, {
      token: 'ada',
    });
    expect(first.body).toMatchObject({ hasMore: true });
    expect(first.body.events.map((e: { seq: number }) => e.seq)).toEqual([1, 2]);
    const next = await server.api('GET', `/api/conversations/${conversation.id}/events?after=2&limit=500`, {
      token: 'ada',
    });
    expect(next.body.events[0].seq).toBe(3);
  });

  it('remembered tools: listed after remember, forgotten with DELETE (204), then 404', async () => {
    const conversation = await newConversation();
    const sent = await server.api('POST', `/api/conversations/${conversation.id}/messages`, {
      token: 'ada',
      body: { content: 'refund' },
    });
    await server.api('POST', `/api/conversations/${conversation.id}/actions/${sent.body.pendingActions[0].id}`, {
      token: 'ada',
      body: { resolution: { type: 'approval', decision: 'allow', remember: true } },
    });
    const again = await server.api('POST', `/api/conversations/${conversation.id}/messages`, {
      token: 'ada',
      body: { content: 'refund again' },
    });
    expect(again.body.status).toBe('completed');
    const listed = await server.api('GET', `/api/conversations/${conversation.id}/remembered-tools`, { token: 'ada' });
    rememberedToolsResponse.parse(listed.body);
    expect(listed.body.tools).toMatchObject([{ toolName: 'issue_refund', rememberedBy: 'ada' }]);
    const path = `/api/conversations/${conversation.id}/remembered-tools/issue_refund`;
    expect((await server.api('DELETE', path, { token: 'ada' })).status).toBe(204);
    const gone = await server.api('DELETE', path, { token: 'ada' });
    expect(gone).toMatchObject({ status: 404, body: { error: { code: 'not_found' } } });
    errorBody.parse(gone.body);
    const third = await server.api('POST', `/api/conversations/${conversation.id}/messages`, {
      token: 'ada',
      body: { content: 'refund' },
    });
    expect(third.body.status).toBe('requires_action');
  });

  it('POST /branch copies into a new private conversation; open requests arrive closed', async () => {
    const conversation = await newConversation();
    await server.api('POST', `/api/conversations/${conversation.id}/messages`, {
      token: 'ada',
      body: { content: 'refund' },
    });
    const branched = await server.api('POST', `/api/conversations/${conversation.id}/branch`, { token: 'ada' });
    expect(branched.status).toBe(201);
    conversationView.parse(branched.body);
    expect(branched.body).toMatchObject({
      ownerId: 'ada',
      status: 'idle',
      metadata: { branchedFrom: conversation.id },
    });
    const actions = actionsResponse.parse(
      (await server.api('GET', `/api/conversations/${branched.body.id}/actions`, { token: 'ada' })).body,
    ).actions;
    expect(actions.map((a: { status: string }) => a.status)).toEqual(['cancelled']);
    const original = (await server.api('GET', `/api/conversations/${conversation.id}`, { token: 'ada' })).body;
    expect(original.runtime.status).toBe('requires_action');
  });

  it('GET /api/inbox: what waits on the caller, oldest first, paged', async () => {
    const fresh = await startServer();
    try {
      const ids: string[] = [];
      for (let index = 0; index < 3; index++) {
        const conversation = (
          await fresh.api('POST', '/api/conversations', { token: 'ada', body: { agent: 'support' } })
        ).body;
        const sent = await fresh.api('POST', `/api/conversations/${conversation.id}/messages`, {
          token: 'ada',
          body: { content: 'refund' },
        });
        ids.push(sent.body.pendingActions[0].id);
      }
      const bobs = (await fresh.api('POST', '/api/conversations', { token: 'bob', body: { agent: 'support' } })).body;
      await fresh.api('POST', `/api/conversations/${bobs.id}/messages`, { token: 'bob', body: { content: 'refund' } });

      const first = await fresh.api('GET', '/api/inbox?limit=2', { token: 'ada' });
      expect(first.status).toBe(200);
      inboxResponse.parse(first.body);
      expect(first.body.actions.map((a: { id: string }) => a.id)).toEqual(ids.slice(0, 2));
      expect(first.body.nextCursor).toEqual(expect.any(String));
      const second = await fresh.api('GET', `/api/inbox?limit=2&cursor=${first.body.nextCursor}`, { token: 'ada' });
      expect(second.body.actions.map((a: { id: string }) => a.id)).toEqual(ids.slice(2));
      expect(second.body.nextCursor).toBeUndefined();
      expect((await fresh.api('GET', '/api/inbox', { token: 'bob' })).body.actions).toHaveLength(1);
      expect((await fresh.api('GET', '/api/inbox')).body.actions).toEqual([]);
    } finally {
      await fresh.close();
    }
  });

  it('GET /api/openapi.json and /api/docs', async () => {
    const document = await server.api('GET', '/api/openapi.json');
    expect(document.status).toBe(200);
    expect(document.body.openapi).toBe('3.1.0');
    const docs = await server.api('GET', '/api/docs');
    expect(docs.status).toBe(200);
    expect(docs.headers.get('content-type')).toContain('text/html');
    expect(docs.text).toContain('/api/openapi.json');
  });
});
