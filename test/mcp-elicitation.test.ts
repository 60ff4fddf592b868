/**
 * An agent uses a real MCP server (written with the SDK) over stdio and over streamable HTTP on
 * loopback. The server's tool asks for a form with every kind of field, then for a page; a person
 * answers both through Heed's HTTP API, and the test checks what the server received.
 */
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { AgentConfig, McpServerConfig } from 'heed';
import { scriptedModel, type ScriptedVersion } from 'heed/testing';
import { startServer, type TestServer } from './http-fixtures.js';
import { SPEC_VERSIONS } from './spec-versions.js';
import { startHttpServer } from './fixtures/mcp-server.mjs';
import { engineOf } from '../src/heed.js';

const fixture = fileURLToPath(new URL('./fixtures/mcp-server.mjs', import.meta.url));

function signUpAgent(mcp: McpServerConfig, spec: ScriptedVersion) {
  const model = scriptedModel(
    ({ messages }) =>
      messages.at(-1)?.role === 'tool'
        ? { text: 'You are signed up.' }
        : { toolCalls: [{ toolName: 'fixture_sign_up', input: { plan: 'pro' } }] },
    { specificationVersion: spec },
  );
  const agent: AgentConfig = { name: 'onboarding', model, mcpServers: { fixture: mcp } };
  return { agent, model };
}

const transports: Array<{
  name: string;
  start(): Promise<{ config: McpServerConfig; received?: unknown[]; close(): Promise<void> }>;
}> = [
  {
    name: 'stdio',
    start: async () => ({
      config: { command: process.execPath, args: [fixture, '--stdio'] },
      close: async () => undefined,
    }),
  },
  {
    name: 'streamable HTTP',
    start: async () => {
      const server = await startHttpServer();
      return { config: { url: server.url }, received: server.received, close: () => server.close() };
    },
  },
];

// Each transport, with a model of each AI SDK major (specification v4 and v3).
const cases = transports.flatMap((transport) => SPEC_VERSIONS.map((spec) => ({ ...transport, spec })));

describe.each(cases)('an MCP server over $name, model $spec', (transport) => {
  let mcp: Awaited<ReturnType<(typeof transports)[number]['start']>>;
  let server: TestServer;
  let model: ReturnType<typeof signUpAgent>['model'];

  beforeAll(async () => {
    mcp = await transport.start();
    const made = signUpAgent(mcp.config, transport.spec);
    model = made.model;
    server = await startServer({ agents: [made.agent] });
    await server.heed.ready();
  });
  afterAll(async () => {
    await server.close();
    await mcp.close();
  });

  it('offers its tools as <server>_<tool> with their JSON Schema as given', async () => {
    const agents = await server.api('GET', '/api/agents', { token: 'ada' });
    expect(agents.status).toBe(200);
    const definition = engineOf(server.heed).agent('onboarding').tools!.fixture_sign_up;
    expect(definition.description).toContain('Sign the person up');
    const { inputJsonSchema } = await import('../src/tool.js');
    expect(inputJsonSchema(definition)).toMatchObject({
      type: 'object',
      properties: { plan: { type: 'string', enum: ['free', 'pro'] } },
      required: ['plan'],
    });
  });

  it('asks the form as a question and the page as a url action, and sends the answers back typed', async () => {
    const created = await server.api('POST', '/api/conversations', { token: 'ada', body: { agent: 'onboarding' } });
    expect(created.status).toBe(201);
    const id = created.body.id as string;

    const paused = await server.api('POST', `/api/conversations/${id}/messages`, {
      token: 'ada',
      body: { content: 'Sign me up for pro.' },
    });
    expect(paused.status).toBe(200);
    expect(paused.body.status).toBe('requires_action');
    const form = paused.body.pendingActions[0];
    expect(form).toMatchObject({
      kind: 'question',
      toolName: 'fixture_sign_up',
      preamble: 'fixture asks: Tell us about yourself.',
    });
    const byId = Object.fromEntries(
      (form.questions as Array<{ id: string }>).map((question) => [question.id, question]),
    );
    expect(Object.keys(byId)).toEqual([
      'name',
      'email',
      'website',
      'birthday',
      'meeting',
      'seats',
      'budget',
      'newsletter',
      'size',
      'color',
      'tier',
      'toppings',
      'extras',
      'note',
    ]);
    expect(byId.name).toMatchObject({
      header: 'Full name',
      prompt: 'Your name as it appears on your ID.',
      input: { type: 'text', min: 2, max: 40, required: true },
    });
    expect(byId.email).toMatchObject({ header: 'Email', input: { type: 'email', required: true } });
    expect(byId.website).toMatchObject({ input: { type: 'url' } });
    expect(byId.birthday).toMatchObject({ input: { type: 'date' } });
    expect(byId.meeting).toMatchObject({ input: { type: 'text', placeholder: '2025-03-31T14:30:00Z' } });
    expect(byId.seats).toMatchObject({ input: { type: 'number', min: 1, max: 9, required: true }, defaults: ['2'] });
    expect(byId.budget).toMatchObject({
      prompt: 'Monthly budget in euros.',
      input: { type: 'number', min: 0, max: 1000.5 },
    });
    expect(byId.newsletter).toMatchObject({ input: { type: 'boolean' }, defaults: ['true'] });
    expect(byId.size).toMatchObject({
      multiple: false,
      custom: false,
      defaults: ['medium'],
      options: [
        { value: 'small', label: 'small' },
        { value: 'medium', label: 'medium' },
        { value: 'large', label: 'large' },
      ],
    });
    expect(byId.color).toMatchObject({
      options: [
        { value: 'r', label: 'Red' },
        { value: 'g', label: 'Green' },
      ],
    });
    expect(byId.tier).toMatchObject({
      options: [
        { value: 't1', label: 'Basic' },
        { value: 't2', label: 'Premium' },
      ],
    });
    expect(byId.toppings).toMatchObject({
      multiple: true,
      description: 'Pick 1 to 2.',
      input: { type: 'select', required: true },
    });
    expect(byId.extras).toMatchObject({
      multiple: true,
      defaults: ['a'],
      options: [
        { value: 'a', label: 'Air' },
        { value: 'b', label: 'Boat' },
      ],
    });
    expect(byId.note).toMatchObject({ header: 'note', prompt: 'Anything else we should know?' });

    const answered = await server.api('POST', `/api/conversations/${id}/actions/${form.id}`, {
      token: 'ada',
      body: {
        resolution: {
          type: 'question',
          answers: {
            name: ' Ada Lovelace ',
            email: 'ada@example.com',
            website: 'https://ada.example.com',
            birthday: '1815-12-10',
            meeting: '2025-03-31T14:30:00Z',
            seats: '3',
            budget: '250.5',
            newsletter: 'no',
            color: 'Green',
            tier: 't2',
            toppings: ['cheese', 'olives'],
          },
        },
      },
    });
    expect(answered.status).toBe(200);
    expect(answered.body.status).toBe('requires_action');
    const page = answered.body.pendingActions[0];
    expect(page).toMatchObject({
      kind: 'url',
      url: 'https://example.com/verify?plan=pro',
      title: 'fixture asks you to open a page',
      message: 'Confirm your email address.',
    });

    const done = await server.api('POST', `/api/conversations/${id}/actions/${page.id}`, {
      token: 'ada',
      body: { resolution: { type: 'url', decision: 'accept' } },
    });
    expect(done.status).toBe(200);
    expect(done.body.status).toBe('completed');

    const expected = {
      plan: 'pro',
      form: {
        action: 'accept',
        content: {
          name: 'Ada Lovelace',
          email: 'ada@example.com',
          website: 'https://ada.example.com',
          birthday: '1815-12-10',
          meeting: '2025-03-31T14:30:00Z',
          seats: 3,
          budget: 250.5,
          newsletter: false,
          size: 'medium',
          color: 'g',
          tier: 't2',
          toppings: ['cheese', 'olives'],
          extras: ['a'],
        },
      },
      page: { action: 'accept' },
    };
    // What the server's tool received, as it reported it back, is what the model read.
    const tool = (done.body.messages as Array<{ role: string; parts: Array<{ output?: { value: string } }> }>).find(
      (message) => message.role === 'tool',
    )!;
    expect(JSON.parse(tool.parts[0].output!.value)).toEqual(expected);
    if (mcp.received) expect(mcp.received).toEqual([expected.form, expected.page]);
    expect(model.calls.at(-1)!.messages.at(-1)).toMatchObject({ role: 'tool' });
  });

  it('sends a skip back as decline and a dismiss as cancel, which ends the turn', async () => {
    const id = (await server.api('POST', '/api/conversations', { token: 'ada', body: { agent: 'onboarding' } })).body
      .id as string;
    const paused = await server.api('POST', `/api/conversations/${id}/messages`, {
      token: 'ada',
      body: { content: 'Sign me up.' },
    });
    const skipped = await server.api('POST', `/api/conversations/${id}/actions/${paused.body.pendingActions[0].id}`, {
      token: 'ada',
      body: { resolution: { type: 'question', skip: true } },
    });
    const page = skipped.body.pendingActions[0];
    expect(page.kind).toBe('url');
    const calls = model.calls.length;
    const dismissed = await server.api('POST', `/api/conversations/${id}/actions/${page.id}`, {
      token: 'ada',
      body: { resolution: { type: 'url', decision: 'cancel' } },
    });
    expect(dismissed.body.status).toBe('completed');
    const tool = (
      dismissed.body.messages as Array<{ role: string; parts: Array<{ output?: { value: string } }> }>
    ).find((message) => message.role === 'tool')!;
    expect(JSON.parse(tool.parts[0].output!.value)).toMatchObject({
      form: { action: 'decline' },
      page: { action: 'cancel' },
    });
    expect(model.calls.length).toBe(calls + 1);

    const again = (await server.api('POST', '/api/conversations', { token: 'ada', body: { agent: 'onboarding' } })).body
      .id as string;
    const form = (
      await server.api('POST', `/api/conversations/${again}/messages`, {
        token: 'ada',
        body: { content: 'Sign me up.' },
      })
    ).body.pendingActions[0];
    const before = model.calls.length;
    const ended = await server.api('POST', `/api/conversations/${again}/actions/${form.id}`, {
      token: 'ada',
      body: { resolution: { type: 'question', dismiss: true } },
    });
    expect(ended.body.status).toBe('completed');
    const result = (ended.body.messages as Array<{ role: string; parts: Array<{ output?: unknown }> }>).find(
      (message) => message.role === 'tool',
    )!;
    expect(result.parts[0].output).toEqual({ type: 'error-text', value: 'Dismissed by the user.' });
    // As with any dismissed question, the model is not called again.
    expect(model.calls.length).toBe(before);
    if (mcp.received) expect(mcp.received.slice(-2)).toEqual([{ action: 'cancel' }, { action: 'cancel' }]);
  });
});
