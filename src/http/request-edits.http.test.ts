import { afterEach, describe, expect, it } from 'vitest';
import { startServer, tokens, type TestServer } from '../../test/http-fixtures.js';

/**
 * Edited arguments of a request made with `POST /api/requests` are checked against the `argsSchema` it
 * gave, each bound (issue 42: they were all taken); one that gave none takes no edit.
 */

const servers: TestServer[] = [];
afterEach(async () => {
  await Promise.all(servers.splice(0).map((server) => server.close()));
});

const argsSchema = {
  type: 'object',
  properties: { service: { type: 'string' }, replicas: { type: 'integer', minimum: 1, maximum: 5 } },
  required: ['service', 'replicas'],
};

async function ask(request: object) {
  const server = await startServer({ auth: { tokens } });
  servers.push(server);
  const made = await server.api('POST', '/api/requests', { token: 'ada', body: { request } });
  expect(made.status).toBe(201);
  const answer = (resolution: object) =>
    server.api('POST', `/api/conversations/${made.body.conversationId}/actions/${made.body.id}`, {
      token: 'ada',
      body: { resolution: { type: 'approval', decision: 'allow', ...resolution } },
    });
  return { server, action: made.body, answer };
}

const scale = { kind: 'approval', title: 'Scale the API?', args: { service: 'api', replicas: 3 }, argsSchema };

describe('edited arguments of a request', () => {
  it.each([
    ['a string for an integer', { service: 'api', replicas: 'two' }, 'replicas'],
    ['below the minimum', { service: 'api', replicas: 0 }, 'replicas'],
    ['above the maximum', { service: 'api', replicas: 9 }, 'replicas'],
    ['a key the schema does not have', { service: 'api', replicas: 2, force: true }, 'force'],
    ['a required key left out', { service: 'api' }, 'replicas'],
  ])(
    '%s is 400 invalid_approved_args naming the field, and the request still waits',
    async (_, approvedArgs, field) => {
      const { server, action, answer } = await ask(scale);
      const refused = await answer({ approvedArgs });
      expect(refused.status).toBe(400);
      expect(refused.body.error).toMatchObject({ code: 'invalid_approved_args', details: { field } });
      const read = await server.api('GET', `/api/requests/${action.id}`, { token: 'ada' });
      expect(read.body.status).toBe('pending');
    },
  );

  it('arguments within every bound are taken and kept on the answer', async () => {
    const { answer } = await ask(scale);
    const taken = await answer({ approvedArgs: { service: 'api', replicas: 5 } });
    expect(taken.status).toBe(200);
    expect(taken.body.settled[0].resolution).toMatchObject({ approvedArgs: { service: 'api', replicas: 5 } });
  });

  it('a request without an argsSchema takes no edit (400, still waiting), but approving it as it is works', async () => {
    const { answer } = await ask({ kind: 'approval', title: 'Restart the cache?', args: { node: 'c1' } });
    const refused = await answer({ approvedArgs: { node: 'c2' } });
    expect(refused.status).toBe(400);
    expect(refused.body.error.code).toBe('invalid_approved_args');
    expect(refused.body.error.message).toContain('gave no argsSchema');
    expect((await answer({ approvedArgs: { node: 'c1' } })).status).toBe(200);
  });

  it.each([
    ['below the minimum', 0],
    ['above the maximum', 9],
    ['not a number', 'two'],
  ])("a typed answer %s to a request's question is 400 and the request still waits", async (_, value) => {
    const server = await startServer({ auth: { tokens } });
    servers.push(server);
    const made = await server.api('POST', '/api/requests', {
      token: 'ada',
      body: {
        request: {
          kind: 'question',
          questions: [{ id: 'replicas', prompt: 'How many replicas?', input: { type: 'number', min: 1, max: 5 } }],
        },
      },
    });
    expect(made.status).toBe(201);
    const path = `/api/conversations/${made.body.conversationId}/actions/${made.body.id}`;
    const refused = await server.api('POST', path, {
      token: 'ada',
      body: { resolution: { type: 'question', answers: { replicas: value } } },
    });
    expect(refused.status).toBe(400);
    expect(refused.body.error.code).toBe('invalid_resolution');
    expect((await server.api('GET', `/api/requests/${made.body.id}`, { token: 'ada' })).body.status).toBe('pending');
    const taken = await server.api('POST', path, {
      token: 'ada',
      body: { resolution: { type: 'question', answers: { replicas: 3 } } },
    });
    expect(taken.status).toBe(200);
  });
});
