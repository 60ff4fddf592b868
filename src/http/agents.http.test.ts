import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createClient } from 'heed/client';
import { agentInfo, agentsResponse, errorBody } from '../protocol/responses.js';
import { scriptedModel } from '../testing/scripted-model.js';
import { startServer, supportAgent, type TestServer } from '../../test/http-fixtures.js';

// GET /api/agents/:name, as a front end asks "what can this agent do?" before it shows a chat (seed 002).
describe('GET /api/agents/:name', () => {
  let server: TestServer;
  let open: TestServer;
  const intakeAgent = {
    name: 'intake desk',
    model: scriptedModel(() => ({ text: 'Hi.' })),
    intake: {
      questions: [{ header: 'Topic', prompt: 'What about?', options: [{ value: 'a', label: 'A' }], defaults: ['a'] }],
    },
  };
  beforeAll(async () => {
    server = await startServer({
      agents: [supportAgent(new Map()), intakeAgent],
      auth: { tokens: { 'tok-ada': 'ada' }, required: true },
    });
    open = await startServer({ agents: [supportAgent(new Map()), intakeAgent] });
  });
  afterAll(async () => {
    await server.close();
    await open.close();
  });

  it('answers one agent with its capabilities: the same entry GET /api/agents lists', async () => {
    const list = await server.api('GET', '/api/agents', { token: 'tok-ada' });
    const entries = agentsResponse.parse(list.body).agents;
    for (const entry of entries) {
      const one = await server.api('GET', `/api/agents/${encodeURIComponent(entry.name)}`, { token: 'tok-ada' });
      expect(one.status).toBe(200);
      expect(agentInfo.parse(one.body)).toEqual(entry);
    }
    expect((await server.api('GET', '/api/agents/support', { token: 'tok-ada' })).body).toEqual({
      name: 'support',
      description: 'Test agent',
      capabilities: { toolApproval: true, questions: true, intake: false, clientTools: true },
    });
    // A name with a space, sent encoded.
    expect((await server.api('GET', '/api/agents/intake%20desk', { token: 'tok-ada' })).body).toEqual({
      name: 'intake desk',
      capabilities: { toolApproval: false, questions: true, intake: true, clientTools: false },
    });
  });

  it('is 404 not_found for a name no agent has, with a sentence naming it', async () => {
    for (const name of ['nobody', 'Support', '__proto__', 'constructor', 'support%2F..', '%00']) {
      const missing = await server.api('GET', `/api/agents/${name}`, { token: 'tok-ada' });
      expect(missing.status, name).toBe(404);
      expect(errorBody.parse(missing.body).error.code).toBe('not_found');
      expect(missing.body.error.message).toMatch(/^There is no agent named ".*"\.$/);
    }
    // Too long to be a name: refused before anything is looked up.
    const long = await server.api('GET', `/api/agents/${'x'.repeat(300)}`, { token: 'tok-ada' });
    expect(long.status).toBe(400);
    expect(long.body.error.code).toBe('invalid_request');
  });

  it('follows auth as the list does: 401 without a token when auth is required; anonymous callers learn only what the list shows', async () => {
    expect((await server.api('GET', '/api/agents/support')).status).toBe(401);
    expect((await server.api('GET', '/api/agents/nobody')).status).toBe(401);
    const listed = agentsResponse.parse((await open.api('GET', '/api/agents')).body).agents;
    const one = await open.api('GET', '/api/agents/support');
    expect(one.status).toBe(200);
    expect(one.body).toEqual(listed.find((entry) => entry.name === 'support'));
    // Nothing about tools, instructions or the model: only the list's keys.
    expect(Object.keys(one.body).sort()).toEqual(['capabilities', 'description', 'name']);
  });

  it('heed/client reads it with agent(name)', async () => {
    const client = createClient({ baseUrl: server.url, token: 'tok-ada' });
    expect(await client.agent('intake desk')).toMatchObject({ name: 'intake desk', capabilities: { intake: true } });
    await expect(client.agent('nobody')).rejects.toMatchObject({ status: 404, code: 'not_found' });
  });
});
