import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { afterEach, describe, expect, it } from 'vitest';
import { collectStream, startServer, type TestServer } from '../../../test/http-fixtures.js';
import type { HeedConfig } from '../../config.js';
import { sqliteStore } from '../../store/sqlite/sqlite-store.js';

/** Personal tokens (docs/auth.md) over real HTTP: scopes, revocation, what is stored. */

const closing: Array<() => Promise<void>> = [];
afterEach(async () => {
  for (const close of closing.splice(0).reverse()) await close();
});

async function start(config: Partial<HeedConfig> = {}): Promise<TestServer> {
  const server = await startServer({
    auth: { tokens: { 'tok-ada': 'ada', 'tok-bob': 'bob', 'tok-ops': 'olga' }, admins: ['olga'] },
    ...config,
  });
  closing.push(() => server.close());
  return server;
}

async function make(server: TestServer, token: string, body: object) {
  return server.api('POST', '/api/me/tokens', { token, body });
}

describe('personal tokens', () => {
  it('a token is shown once, listed without its secret, and goes no further than its scopes (403 scope names the one missing)', async () => {
    const server = await start();
    const made = await make(server, 'tok-ada', { name: 'laptop script', scopes: ['read'] });
    expect(made.status).toBe(201);
    expect(made.body).toMatchObject({ name: 'laptop script', scopes: ['read'], lastUsedAt: null, expiresAt: null });
    expect(made.body.token).toMatch(/^heed_pat_[\w-]{40,}$/);
    const listed = await server.api('GET', '/api/me/tokens', { token: 'tok-ada' });
    expect(listed.body.tokens).toEqual([{ ...made.body, token: undefined }].map(({ token: _t, ...rest }) => rest));
    expect(listed.text).not.toContain(made.body.token);

    const pat = made.body.token as string;
    expect((await server.api('GET', '/api/me', { token: pat })).body.userId).toBe('ada');
    const { id } = (await server.api('POST', '/api/conversations', { token: 'tok-ada', body: { agent: 'support' } }))
      .body;
    const turn = await server.api('POST', `/api/conversations/${id}/messages`, {
      token: 'tok-ada',
      body: { content: 'refund' },
    });
    expect((await server.api('GET', `/api/conversations/${id}`, { token: pat })).status).toBe(200);

    const write = await server.api('POST', '/api/conversations', { token: pat, body: { agent: 'support' } });
    expect(write.status).toBe(403);
    expect(write.body.error).toMatchObject({ code: 'scope', details: { scope: 'converse' } });
    const settle = await server.api('POST', `/api/conversations/${id}/actions/${turn.body.pendingActions[0].id}`, {
      token: pat,
      body: { resolution: { type: 'approval', decision: 'allow' } },
    });
    expect(settle.status).toBe(403);
    expect(settle.body.error.details.scope).toBe('answer');
    // Nothing was settled by the refused call.
    expect(
      (await server.api('GET', `/api/conversations/${id}`, { token: 'tok-ada' })).body.pendingActions,
    ).toHaveLength(1);

    const answerer = (await make(server, 'tok-ada', { name: 'answers', scopes: ['answer'] })).body.token;
    const allowed = await server.api('POST', `/api/conversations/${id}/actions/${turn.body.pendingActions[0].id}`, {
      token: answerer,
      body: { resolution: { type: 'approval', decision: 'allow' } },
    });
    expect(allowed.status).toBe(200);
    expect(allowed.body.settled[0].resolvedBy).toBe('ada');
  });

  it('a personal token cannot make or see tokens; the admin scope is only for admins; a read token of an admin cannot read the queue', async () => {
    const server = await start();
    const pat = (await make(server, 'tok-ada', { name: 'all', scopes: ['read', 'answer', 'converse'] })).body.token;
    const escalate = await make(server, pat, { name: 'more', scopes: ['read'] });
    expect(escalate.status).toBe(403);
    expect(escalate.body.error.code).toBe('scope');
    expect((await server.api('GET', '/api/me/tokens', { token: pat })).status).toBe(403);

    const notAdmin = await make(server, 'tok-ada', { name: 'ops', scopes: ['admin'] });
    expect(notAdmin.status).toBe(403);
    expect(notAdmin.body.error.code).toBe('forbidden');

    const adminPat = (await make(server, 'tok-ops', { name: 'ops', scopes: ['admin', 'read'] })).body.token;
    expect((await server.api('GET', '/api/queue', { token: adminPat })).status).toBe(200);
    const readPat = (await make(server, 'tok-ops', { name: 'look', scopes: ['read'] })).body.token;
    const queue = await server.api('GET', '/api/queue', { token: readPat });
    expect(queue.status).toBe(403);
    expect(queue.body.error.details.scope).toBe('admin');

    const bad = await make(server, 'tok-ada', { name: 'x', scopes: ['everything'] });
    expect(bad.status).toBe(400);
    expect((await make(server, 'tok-ada', { name: 'x', scopes: [] })).status).toBe(400);
    expect((await server.api('POST', '/api/me/tokens', { body: { name: 'x', scopes: ['read'] } })).status).toBe(403);
  });

  it('revoked, a token stops at once and a stream it opened ends; another person cannot revoke it', async () => {
    const server = await start();
    const made = (await make(server, 'tok-ada', { name: 'terminal', scopes: ['read'] })).body;
    const { id } = (await server.api('POST', '/api/conversations', { token: 'tok-ada', body: { agent: 'support' } }))
      .body;
    await server.api('POST', `/api/conversations/${id}/messages`, { token: 'tok-ada', body: { content: 'refund' } });

    const abort = new AbortController();
    closing.push(async () => abort.abort());
    const response = await fetch(`${server.url}/api/conversations/${id}/events/stream`, {
      headers: { authorization: `Bearer ${made.token}` },
      signal: abort.signal,
    });
    const { events, ended } = collectStream(response, abort.signal);
    await expect.poll(() => events.map((event) => event.event)).toContain('action.required');

    expect((await server.api('DELETE', `/api/me/tokens/${made.id}`, { token: 'tok-bob' })).status).toBe(404);
    expect((await server.api('GET', '/api/me', { token: made.token })).status).toBe(200);
    expect((await server.api('DELETE', `/api/me/tokens/${made.id}`, { token: 'tok-ada' })).status).toBe(204);
    expect((await server.api('GET', '/api/me', { token: made.token })).status).toBe(401);
    expect((await server.api('GET', '/api/me/tokens', { token: 'tok-ada' })).body.tokens).toEqual([]);

    // The stream learns at its next event: ada sends a message, and the stream ends instead of showing it.
    await server.api('POST', `/api/conversations/${id}/cancel`, { token: 'tok-ada' });
    await expect.poll(() => ended(), { timeout: 5000 }).toBe(true);
    expect(events.at(-1)?.event).toBe('error');
    expect(events.some((event) => event.event === 'turn.cancelled')).toBe(false);
  });

  it('a token lapses after expiresInDays; none of its secret is in the database file', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'heed-pat-'));
    closing.push(async () => rmSync(dir, { recursive: true, force: true }));
    const file = join(dir, 'heed.db');
    const clock = { at: Date.parse('2026-12-01T09:00:00Z') };
    const server = await start({ store: sqliteStore({ path: file }), now: () => new Date(clock.at) });
    const made = (await make(server, 'tok-ada', { name: 'week', scopes: ['read'], expiresInDays: 7 })).body;
    expect(made.expiresAt).toBe('2026-12-08T09:00:00.000Z');
    clock.at += 6 * 86_400_000;
    expect((await server.api('GET', '/api/me', { token: made.token })).status).toBe(200);
    const used = (await server.api('GET', '/api/me/tokens', { token: 'tok-ada' })).body.tokens[0];
    expect(used.lastUsedAt).toBe('2026-12-07T09:00:00.000Z');
    clock.at += 86_400_000;
    expect((await server.api('GET', '/api/me', { token: made.token })).status).toBe(401);

    const db = new Database(file, { readonly: true });
    const rows = JSON.stringify(db.prepare('SELECT * FROM adapter_values').all());
    db.close();
    expect(rows).toContain('heed:token:');
    expect(rows).not.toContain(made.token);
    expect(rows).not.toContain(made.token.slice('heed_pat_'.length));
  });
});
