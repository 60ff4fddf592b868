/**
 * `heed serve` without a config, over real HTTP: the demo users and their inbox, the four-eyes refund,
 * the mail kept in a folder and its links, seeding once per database, and what the demo's public
 * tokens do not open (a configured server, a server beyond loopback, another site's page).
 */
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync } from 'node:fs';
import { createServer, request } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { serve, type RunningServer, type ServeOptions } from '../src/cli/serve.js';
import { demoAgents as demoAgentsFromCli } from '../src/cli/demo-agents.js';
import { demoResponse } from '../src/protocol/responses.js';
import { engineOf } from '../src/heed.js';
import { demoAgents, demoUsers } from 'heed/demo';
import { defineConfig } from 'heed';

const dir = mkdtempSync(join(tmpdir(), 'heed-demo-'));
const servers: RunningServer[] = [];

afterAll(async () => {
  for (const server of servers) await server.close().catch(() => undefined);
  rmSync(dir, { recursive: true, force: true });
});

async function startDemo(db: string, options: { host?: string; config?: ServeOptions['config'] } = {}) {
  const lines: string[] = [];
  const server = await serve({
    db,
    port: 0,
    host: options.host,
    config: options.config,
    env: { HEED_DEMO_DELAY_MS: '0' },
    log: (line) => lines.push(line),
    console: false,
  });
  servers.push(server);
  return { server, lines };
}

async function call(
  url: string,
  method: string,
  path: string,
  options: { token?: string; body?: unknown; headers?: Record<string, string> } = {},
) {
  const headers: Record<string, string> = { 'content-type': 'application/json', ...options.headers };
  if (options.token) headers.authorization = `Bearer ${options.token}`;
  const response = await fetch(`${url}${path}`, {
    method,
    headers,
    body: options.body === undefined ? undefined : JSON.stringify(options.body),
  });
  const text = await response.text();
  return { status: response.status, headers: response.headers, body: text ? JSON.parse(text) : undefined };
}

async function until<T>(read: () => T | undefined, timeoutMs = 5000): Promise<T> {
  const started = Date.now();
  for (;;) {
    const value = read();
    if (value !== undefined) return value;
    if (Date.now() - started > timeoutMs) throw new Error('Timed out');
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
}

describe('the demo: users, inbox and the four-eyes refund', () => {
  let demo: Awaited<ReturnType<typeof startDemo>>;
  const db = join(dir, 'demo', 'heed.db');

  beforeAll(async () => {
    mkdirSync(join(dir, 'demo'));
    demo = await startDemo(db);
  });

  it('GET /api/demo names ada and grace with their demo tokens, and says how to sign in', async () => {
    const answer = await call(demo.server.url, 'GET', '/api/demo');
    expect(answer.status).toBe(200);
    expect(demoResponse.parse(answer.body)).toEqual({
      users: [
        { userId: 'ada', name: 'Ada', token: 'demo-ada' },
        { userId: 'grace', name: 'Grace', token: 'demo-grace' },
      ],
    });
    expect(demo.server.demo?.users.map((user) => user.userId)).toEqual(['ada', 'grace']);
    expect(demo.lines).toContain(
      `Demo: sign in as ada or grace at ${demo.server.url}/ ("Try as Ada"); \`npx heed inbox\` answers as ada.`,
    );
    // The agents include the four-eyes one.
    const agents = (await call(demo.server.url, 'GET', '/api/agents', { token: 'demo-ada' })).body.agents.map(
      (agent: { name: string }) => agent.name,
    );
    expect(agents).toEqual(['helpdesk', 'trip-planner', 'page-helper', 'finance']);
  });

  it("the inbox is filled at the first start: ada's refund, the four-eyes refund and a trip question; grace's share of them", async () => {
    const ada = (await call(demo.server.url, 'GET', '/api/inbox', { token: 'demo-ada' })).body.actions;
    expect(
      ada.map((action: Record<string, unknown>) => [
        action.conversationId,
        action.kind,
        action.title ?? action.toolName,
      ]),
    ).toEqual([
      ['demo-helpdesk-ada', 'approval', 'Refund $30 on order 42?'],
      ['demo-finance-grace', 'approval', 'Refund $80 on order 1042?'],
      ['demo-trip-ada', 'question', 'ask'],
    ]);
    const grace = (await call(demo.server.url, 'GET', '/api/inbox', { token: 'demo-grace' })).body.actions;
    expect(grace.map((action: Record<string, unknown>) => [action.conversationId, action.kind])).toEqual([
      ['demo-finance-grace', 'approval'],
      ['demo-helpdesk-grace', 'question'],
    ]);
    // Each sees their own conversations only; an anonymous caller none.
    expect(
      (await call(demo.server.url, 'GET', '/api/conversations', { token: 'demo-grace' })).body.conversations
        .map((c: { id: string }) => c.id)
        .sort(),
    ).toEqual(['demo-finance-grace', 'demo-helpdesk-grace']);
    expect((await call(demo.server.url, 'GET', '/api/inbox')).body.actions).toEqual([]);
    expect((await call(demo.server.url, 'GET', '/api/inbox', { token: 'demo-nobody' })).status).toBe(401);
  });

  it('the finance refund runs only once ada and grace have both allowed it; nobody votes twice or for someone else', async () => {
    const id = 'demo-finance-grace';
    const [action] = (await call(demo.server.url, 'GET', `/api/conversations/${id}/actions`, { token: 'demo-grace' }))
      .body.actions;
    expect(action).toMatchObject({ kind: 'approval', required: 2, approvers: ['ada', 'grace'], votes: [] });
    const path = `/api/conversations/${id}/actions/${action.id}`;
    const allow = { resolution: { type: 'approval', decision: 'allow' } };

    // An anonymous caller cannot see grace's conversation at all.
    expect((await call(demo.server.url, 'POST', path, { body: allow })).status).toBe(404);
    const first = await call(demo.server.url, 'POST', path, { token: 'demo-ada', body: allow });
    expect(first.status).toBe(200);
    expect(first.body.status).toBe('requires_action');
    expect(first.body.pendingActions[0].votes).toMatchObject([{ by: 'ada', decision: 'allow' }]);
    expect((await call(demo.server.url, 'POST', path, { token: 'demo-ada', body: allow })).body.error.code).toBe(
      'already_voted',
    );
    // Ada, an approver but not the owner, may read the conversation but not write to it.
    expect(
      (
        await call(demo.server.url, 'POST', `/api/conversations/${id}/messages`, {
          token: 'demo-ada',
          body: { content: 'refund order 1 for $1' },
        })
      ).status,
    ).toBe(404);

    const second = await call(demo.server.url, 'POST', path, { token: 'demo-grace', body: allow });
    expect(second.status).toBe(200);
    expect(second.body.status).toBe('completed');
    expect(second.body.messages.at(-1).parts[0].text).toMatch(
      /^Both allowed it: \$80 refunded on order 1042 \(reference rf_/,
    );
    const settled = (await call(demo.server.url, 'GET', `/api/conversations/${id}/actions`, { token: 'demo-grace' }))
      .body.actions[0];
    expect(settled).toMatchObject({ status: 'resolved', resolvedBy: 'grace', resolution: { decision: 'allow' } });
    expect(settled.resolution.votes.map((vote: { by: string }) => vote.by)).toEqual(['ada', 'grace']);
    const results = (
      await call(demo.server.url, 'GET', `/api/conversations/${id}`, { token: 'demo-grace' })
    ).body.messages.filter((message: { role: string }) => message.role === 'tool');
    expect(results).toHaveLength(1);
  });

  it('mail is kept as .eml files beside the database, one line each in the output; a link answers as its recipient', async () => {
    const mailDir = join(dir, 'demo', 'heed-mail');
    const lines = await until(() => {
      const found = demo.lines.filter((line) => line.startsWith('Mail for '));
      return found.length >= 4 ? found : undefined;
    });
    expect(lines.map((line) => line.replace(/ → .*/, '')).sort()).toEqual(
      [
        'Mail for ada: [helpdesk] Approve? Refund $30 on order 42?',
        'Mail for ada: [finance] Approve? Refund $80 on order 1042?',
        'Mail for grace: [finance] Approve? Refund $80 on order 1042?',
        'Mail for ada: [trip-planner] Question: Where would you like to go? (+3 more)',
      ].sort(),
    );
    expect(demo.lines).toContain(`Demo mail is kept in ${mailDir}, one .eml file each, and listed here.`);
    const files = readdirSync(mailDir).filter((name) => name.endsWith('.eml'));
    expect(files).toHaveLength(4);
    // The mail holds links that answer as its recipient: only the owner may read it.
    expect(statSync(mailDir).mode & 0o777).toBe(0o700);
    const adaRefund = files
      .map((name) => join(mailDir, name))
      .find((file) => readFileSync(file, 'utf8').includes('Subject: [helpdesk] Approve? Refund $30'))!;
    expect(statSync(adaRefund).mode & 0o777).toBe(0o600);
    expect(readFileSync(adaRefund, 'utf8')).toMatch(/^To: ada\r?\n/);

    // The link of ada's mail answers as ada, through the link channel.
    const page = / → (http:\/\/\S+)$/.exec(lines.find((line) => line.startsWith('Mail for ada: [helpdesk]'))!)![1];
    const token = page.split('/a/')[1];
    const answered = await call(demo.server.url, 'POST', `/api/links/${token}`, {
      body: { resolution: { type: 'approval', decision: 'allow', approvedArgs: { orderId: 42, amount: 20 } } },
    });
    expect(answered.status).toBe(200);
    const actions = (
      await call(demo.server.url, 'GET', '/api/conversations/demo-helpdesk-ada/actions', { token: 'demo-ada' })
    ).body.actions;
    const refund = actions.find((action: { kind: string }) => action.kind === 'approval');
    expect(refund).toMatchObject({
      status: 'resolved',
      resolvedBy: 'ada',
      channel: 'link',
      resolution: { approvedArgs: { orderId: 42, amount: 20 } },
    });
  });

  it('seeds once: a restart on the same database starts nothing new and sends no mail again', async () => {
    const before = (await call(demo.server.url, 'GET', '/api/conversations', { token: 'demo-ada' })).body.conversations
      .length;
    await demo.server.close();
    const again = await startDemo(db);
    expect(
      (await call(again.server.url, 'GET', '/api/conversations', { token: 'demo-ada' })).body.conversations.length,
    ).toBe(before);
    // Nothing is left to send: a mail sent again would be a delivery still pending (or its line already printed).
    const outbox = engineOf(again.server.heed).store;
    await expect.poll(() => outbox.listDeliveries({ status: 'pending' })).toEqual([]);
    expect(again.lines.filter((line) => line.startsWith('Mail for '))).toEqual([]);
    expect(readdirSync(join(dir, 'demo', 'heed-mail'))).toHaveLength(4);
    // ada's inbox is what was left: the trip question (her refund was answered by link, the finance one by votes).
    expect(
      (await call(again.server.url, 'GET', '/api/inbox', { token: 'demo-ada' })).body.actions.map(
        (action: { conversationId: string }) => action.conversationId,
      ),
    ).toEqual(['demo-trip-ada']);
  });
});

describe('what the demo tokens do not open', () => {
  it('a server with a config is not the demo, even one built from heed/demo: GET /api/demo is 404 and demo-ada is refused', async () => {
    const { server, lines } = await startDemo(join(dir, 'configured.db'), {
      config: { agents: demoAgentsFromCli({ chunkDelayMs: 0 }), auth: { tokens: { 'tok-ada': 'ada' } } },
    });
    expect(await call(server.url, 'GET', '/api/demo')).toMatchObject({
      status: 404,
      body: { error: { code: 'not_found' } },
    });
    expect((await call(server.url, 'GET', '/api/inbox', { token: 'demo-ada' })).status).toBe(401);
    expect((await call(server.url, 'GET', '/api/conversations', { token: 'tok-ada' })).body.conversations).toEqual([]);
    expect(lines.some((line) => line.startsWith('Demo:'))).toBe(false);
  });

  it('the demo on a real model: each agent whose model would fail is named at start, and no requests are started', async () => {
    const lines: string[] = [];
    // A port nothing listens on.
    const closed = await new Promise<number>((resolve) => {
      const probe = createServer().listen(0, '127.0.0.1', () => {
        const { port } = probe.address() as AddressInfo;
        probe.close(() => resolve(port));
      });
    });
    const server = await serve({
      db: join(dir, 'real.db'),
      port: 0,
      env: { OPENAI_API_KEY: 'sk-test', OPENAI_BASE_URL: `http://127.0.0.1:${closed}/v1`, HEED_DEMO_DELAY_MS: '0' },
      log: (line) => lines.push(line),
      console: false,
    });
    servers.push(server);
    expect(lines.filter((line) => line.startsWith('Warning:'))).toEqual(
      ['helpdesk', 'trip-planner', 'page-helper', 'finance'].map(
        (name) =>
          `Warning: agent "${name}" (openai.chat gpt-4o-mini) will fail at its first message: the provider at http://127.0.0.1:${closed}/v1 cannot be reached: nothing answers there (connection refused). Check its address (baseURL, or OPENAI_BASE_URL for OpenAI) and that it runs.`,
      ),
    );
    expect(lines).toContain(
      'No requests are started for the demo users on a real model (each would cost model calls): ask helpdesk or finance for a refund.',
    );
    expect((await call(server.url, 'GET', '/api/inbox', { token: 'demo-ada' })).body.actions).toEqual([]);
  });

  it('the demo beyond loopback has no users: no tokens handed out, none accepted, nothing seeded', async () => {
    const { server, lines } = await startDemo(join(dir, 'wide.db'), { host: '0.0.0.0' });
    expect(lines).toContain(
      'Demo users are off: this server listens beyond loopback, where anyone could sign in as them. Write a config with auth.tokens to have users.',
    );
    expect((await call(server.url, 'GET', '/api/demo')).status).toBe(404);
    expect((await call(server.url, 'GET', '/api/inbox', { token: 'demo-ada' })).status).toBe(401);
    // Anonymous use of the demo agents still works, as before.
    expect((await call(server.url, 'POST', '/api/conversations', { body: { agent: 'finance' } })).status).toBe(201);
    expect(server.demo).toBeUndefined();
  });

  it("another site's page cannot read the tokens: a rebound host name gets 421 and no CORS header lets a page read the answer", async () => {
    const { server } = await startDemo(join(dir, 'cross.db'));
    // fetch will not send another Host header: node:http will, as a rebinding page's browser does.
    const rebound = await new Promise<number>((resolve, reject) => {
      const target = new URL(server.url);
      request(
        {
          host: target.hostname,
          port: target.port,
          path: '/api/demo',
          headers: { host: `evil.example:${target.port}` },
        },
        (response) => {
          response.resume();
          resolve(response.statusCode!);
        },
      )
        .once('error', reject)
        .end();
    });
    expect(rebound).toBe(421);
    const crossSite = await fetch(`${server.url}/api/demo`, { headers: { origin: 'https://evil.example' } });
    expect(crossSite.status).toBe(200);
    expect(crossSite.headers.get('access-control-allow-origin')).toBeNull();
  });
});

describe('heed/demo: a config that starts from the demo agents', () => {
  it('exports the agents and the demo users; the four-eyes refund asks the approvers the config names', async () => {
    expect(demoUsers.map((user) => user.userId)).toEqual(['ada', 'grace']);
    const config = defineConfig({
      agents: demoAgents({ chunkDelayMs: 0, approvers: ['ana', 'ben'] }),
      auth: { tokens: { 'tok-cy': 'cy', 'tok-ana': 'ana', 'tok-ben': 'ben' } },
    });
    expect(config.agents.map((agent) => agent.name)).toEqual(['helpdesk', 'trip-planner', 'page-helper', 'finance']);
    const { server } = await startDemo(join(dir, 'from-demo.db'), { config });
    const { id } = (
      await call(server.url, 'POST', '/api/conversations', { token: 'tok-cy', body: { agent: 'finance' } })
    ).body;
    const sent = await call(server.url, 'POST', `/api/conversations/${id}/messages`, {
      token: 'tok-cy',
      body: { content: 'refund order 7 for $12' },
    });
    expect(sent.body.pendingActions[0]).toMatchObject({
      title: 'Refund $12 on order 7?',
      approvers: ['ana', 'ben'],
      required: 2,
    });
    const path = `/api/conversations/${id}/actions/${sent.body.pendingActions[0].id}`;
    const allow = { resolution: { type: 'approval', decision: 'allow' } };
    // The requester is not an approver.
    expect((await call(server.url, 'POST', path, { token: 'tok-cy', body: allow })).body.error.code).toBe(
      'action_forbidden',
    );
    expect((await call(server.url, 'POST', path, { token: 'tok-ana', body: allow })).body.status).toBe(
      'requires_action',
    );
    const done = await call(server.url, 'POST', path, { token: 'tok-ben', body: allow });
    expect(done.body.status).toBe('completed');
    expect(done.body.messages.at(-1).parts[0].text).toMatch(/^Both allowed it: \$12 refunded on order 7/);
  });
});

describe("--mail-capture: a config's mail kept in a folder instead of sent", () => {
  it("replaces the config's mail transport; one line per mail with its answer page; a config that sends no mail is told so", async () => {
    const mailDir = join(dir, 'captured');
    const lines: string[] = [];
    const server = await serve({
      config: {
        agents: demoAgentsFromCli({ chunkDelayMs: 0 }),
        auth: { tokens: { 'tok-ada': 'ada' } },
        // Nothing listens on port 1: a mail that were sent would fail.
        notify: {
          email: { transport: 'smtp://127.0.0.1:1', from: 'Heed <heed@example.com>', to: () => 'ops@example.com' },
        },
      },
      db: join(dir, 'capture.db'),
      port: 0,
      env: {},
      log: (line) => lines.push(line),
      console: false,
      mailCapture: mailDir,
    });
    servers.push(server);
    expect(lines).toContain(`Mail is kept in ${mailDir}, one .eml file each, and listed here; nothing is sent.`);
    const { id } = (
      await call(server.url, 'POST', '/api/conversations', { token: 'tok-ada', body: { agent: 'finance' } })
    ).body;
    await call(server.url, 'POST', `/api/conversations/${id}/messages`, {
      token: 'tok-ada',
      body: { content: 'refund order 5 for $9' },
    });
    const line = await until(() => lines.find((entry) => entry.startsWith('Mail for ')));
    expect(line).toMatch(
      new RegExp(
        `^Mail for ops@example\\.com: \\[finance\\] Approve\\? Refund \\$9 on order 5\\? → ${server.url}/a/[A-Za-z0-9_-]+$`,
      ),
    );
    const files = readdirSync(mailDir);
    expect(files).toHaveLength(1);
    expect(readFileSync(join(mailDir, files[0]), 'utf8')).toContain('To: ops@example.com');

    const quiet: string[] = [];
    const none = await serve({
      config: { agents: demoAgentsFromCli({ chunkDelayMs: 0 }) },
      db: join(dir, 'no-mail.db'),
      port: 0,
      env: {},
      log: (entry) => quiet.push(entry),
      console: false,
      mailCapture: mailDir,
    });
    servers.push(none);
    expect(quiet).toContain('Warning: --mail-capture has nothing to keep: the config sends no mail (notify.email).');
  });
});
