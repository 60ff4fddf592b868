import { randomBytes } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { startServer, type TestServer } from '../../test/http-fixtures.js';
import { serve } from '../cli/serve.js';
import { memoryStore } from '../store/memory/memory-store.js';
import { DEFAULT_MAX_REPLY_BYTES } from './remote.js';

/**
 * A hostile remote agent's reply, over real HTTP on loopback (docs/agents-elsewhere.md): one past
 * `remote.maxReplyBytes`, streamed, and one nested 200,000 deep each end the turn failed with a sentence, the
 * conversation not left running, and the agent called once.
 */

const secret = `whsec_${randomBytes(24).toString('base64')}`;
const servers: TestServer[] = [];
const remotes: Server[] = [];
afterEach(async () => {
  await Promise.all(servers.splice(0).map((server) => server.close()));
  await Promise.all(
    remotes.splice(0).map((remote) => (remote.closeAllConnections(), new Promise((done) => remote.close(done)))),
  );
});

/** A remote agent that answers every call with `write(response)`, counting the calls. */
async function hostileAgent(write: (response: import('node:http').ServerResponse) => void) {
  const calls = { count: 0, bytesSent: 0 };
  const server = createServer((request, response) => {
    request.resume();
    request.on('end', () => {
      calls.count++;
      response.writeHead(200, { 'content-type': 'application/json' });
      write(response);
    });
  });
  await new Promise<void>((done) => server.listen(0, '127.0.0.1', done));
  remotes.push(server);
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/heed`, calls };
}

async function sendTo(url: string) {
  const server = await startServer({ agents: [{ name: 'remote', remote: { url, secret, timeoutSeconds: 20 } }] });
  servers.push(server);
  const { id } = (await server.api('POST', '/api/conversations', { token: 'ada', body: { agent: 'remote' } })).body;
  const sent = await server.api('POST', `/api/conversations/${id}/messages`, { token: 'ada', body: { content: 'hi' } });
  const conversation = await server.api('GET', `/api/conversations/${id}`, { token: 'ada' });
  return { sent, conversation };
}

describe('a remote agent reply', () => {
  it('past remote.maxReplyBytes (streamed, twice the limit) fails the turn unread past the limit, the agent called once', async () => {
    const chunk = Buffer.alloc(64 * 1024, 'a');
    const remote = await hostileAgent((response) => {
      response.write('{"content":"');
      const more = () => {
        // Twice the limit, written as the reader takes it: a reader that stops early leaves the rest unsent.
        while (remote.calls.bytesSent < 2 * DEFAULT_MAX_REPLY_BYTES) {
          remote.calls.bytesSent += chunk.length;
          if (!response.write(chunk)) return void response.once('drain', more);
        }
        response.end('"}');
      };
      more();
    });
    const { sent, conversation } = await sendTo(remote.url);
    expect(sent.status).toBe(200);
    expect(sent.body.status).toBe('failed');
    expect(sent.body.error).toMatchObject({ code: 'agent_error' });
    expect(sent.body.error.message).toBe(
      `The remote agent at ${remote.url} answered with a body over ${DEFAULT_MAX_REPLY_BYTES} bytes (remote.maxReplyBytes); it was not read further.`,
    );
    expect(conversation.body.runtime.status).toBe('idle');
    expect(JSON.stringify(conversation.body).length).toBeLessThan(DEFAULT_MAX_REPLY_BYTES / 4);
    expect(remote.calls.count).toBe(1);
  });

  it('nested 200,000 deep fails the turn with a sentence, never a 500, the agent called once', async () => {
    const depth = 200_000;
    const remote = await hostileAgent((response) =>
      response.end(`{"content":"hi","metadata":{"deep":${'['.repeat(depth)}${']'.repeat(depth)}}}`),
    );
    const { sent, conversation } = await sendTo(remote.url);
    expect(sent.status).toBe(200);
    expect(sent.body.status).toBe('failed');
    expect(sent.body.error.code).toBe('agent_error');
    expect(sent.body.error.message).toMatch(
      new RegExp(
        `^The remote agent at ${remote.url.replace(/[.]/g, '\\.')} answered 200 with (JSON nested more than 64 levels deep|a body that is not JSON)`,
      ),
    );
    expect(conversation.body.runtime.status).toBe('idle');
    expect(remote.calls.count).toBe(1);
  });

  it('warns at start about a remote agent called over http:// beyond loopback, and only that one', async () => {
    const lines: string[] = [];
    const server = await serve({
      config: {
        agents: [
          { name: 'far', remote: { url: 'http://agents.example.com/heed', secret } },
          { name: 'near', remote: { url: 'http://127.0.0.1:9/heed', secret } },
          { name: 'safe', remote: { url: 'https://agents.example.com/heed', secret } },
        ],
        store: memoryStore(),
        sweepIntervalMs: 0,
      },
      port: 0,
      log: (line) => lines.push(line),
    });
    await server.close();
    const warned = lines.filter((line) => line.includes('plain http://'));
    expect(warned).toEqual([
      expect.stringContaining('the remote agent "far" is called over plain http:// at agents.example.com'),
    ]);
  });
});
