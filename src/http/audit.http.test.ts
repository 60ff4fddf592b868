import { createHash } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { afterEach, describe, expect, it } from 'vitest';
import { startServer, tokens, type TestServer } from '../../test/http-fixtures.js';
import { runOperate } from '../cli/operate.js';
import { sqliteStore } from '../store/sqlite/sqlite-store.js';

/**
 * The audit log over real HTTP on a SQLite file (docs/operating.md): what each decision leaves, checked against
 * the chain's formula by this file's own small code (not the production one); a changed entry found by
 * `heed audit verify`, in the database and in an exported file; the routes refuse anyone but an admin.
 */

// eslint-disable-next-line @typescript-eslint/no-explicit-any
type Any = any;

/** The formula, written again here: keys sorted at every level, no whitespace, absent fields left out. */
function canonical(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonical).join(',')}]`;
  if (value !== null && typeof value === 'object')
    return `{${Object.keys(value)
      .sort()
      .map((key) => `${JSON.stringify(key)}:${canonical((value as Record<string, unknown>)[key])}`)
      .join(',')}}`;
  return JSON.stringify(value);
}
const sha256 = (text: string) => createHash('sha256').update(text).digest('hex');

/** Recomputes every hash and link from 64 zeros; the entries that do not hold. */
function brokenLinks(entries: Any[]): number[] {
  const bad: number[] = [];
  let previous = '0'.repeat(64);
  for (const entry of entries) {
    const { hash, actor: _actor, onBehalfOf: _onBehalfOf, ...chained } = entry;
    if (entry.prevHash !== previous || sha256(`${entry.prevHash}\n${canonical(chained)}`) !== hash) bad.push(entry.seq);
    previous = hash;
  }
  return bad;
}

describe('the audit log over HTTP', () => {
  let server: TestServer | undefined;
  let dir: string | undefined;
  afterEach(async () => {
    await server?.close();
    server = undefined;
    if (dir) rmSync(dir, { recursive: true, force: true });
    dir = undefined;
  });

  async function start() {
    dir = mkdtempSync(join(tmpdir(), 'heed-audit-'));
    const path = join(dir, 'heed.db');
    server = await startServer({
      store: sqliteStore({ path }),
      auth: { tokens: { ...tokens, root: { userId: 'root' } }, admins: ['root'] },
    });
    return { api: server.api, path, dir };
  }

  async function refundAnswered(api: TestServer['api'], owner: string, answerer: string) {
    const { id } = (await api('POST', '/api/conversations', { token: owner, body: { agent: 'support' } })).body;
    const sent = await api('POST', `/api/conversations/${id}/messages`, { token: owner, body: { content: 'refund' } });
    const actionId = sent.body.pendingActions[0].id;
    const answered = await api('POST', `/api/conversations/${id}/actions/${actionId}`, {
      token: answerer,
      body: { resolution: { type: 'approval', decision: 'allow' } },
    });
    expect(answered.status).toBe(200);
    return { id, actionId };
  }

  it('records answers, tokens and delegations in a chain an independent script recomputes; NDJSON too', async () => {
    const { api } = await start();
    const { id, actionId } = await refundAnswered(api, 'ada', 'ada');
    expect(
      (await api('POST', '/api/me/tokens', { token: 'ada', body: { name: 'cli', scopes: ['read'] } })).status,
    ).toBe(201);
    expect((await api('PUT', '/api/me/delegation', { token: 'ada', body: { to: 'bob' } })).status).toBe(200);

    const read = await api('GET', '/api/audit', { token: 'root' });
    expect(read.status).toBe(200);
    const entries = read.body.entries as Any[];
    expect(entries.map((entry) => [entry.seq, entry.verb, entry.actor, entry.onBehalfOf])).toEqual([
      [1, 'answer', 'ada', undefined],
      [2, 'token.create', 'ada', undefined],
      [3, 'delegation.set', 'ada', 'bob'],
    ]);
    expect(entries[0]).toMatchObject({
      conversationId: id,
      actionId,
      toolName: 'issue_refund',
      decision: 'allow',
      surface: 'api',
      argsSha256: sha256(canonical({ orderId: 42, amount: 5 })),
    });
    // The chain names people by pseudonym only: no user id in the hashed fields.
    expect(entries[0].actorKey).toMatch(/^p_[0-9a-f]{16}$/);
    expect(entries[2].onBehalfOfKey).toMatch(/^p_[0-9a-f]{16}$/);
    expect(brokenLinks(entries)).toEqual([]);
    expect(read.body.anchor).toEqual({ seq: 0, hash: '0'.repeat(64) });

    const lines = await api('GET', '/api/audit?after=1&limit=1', {
      token: 'root',
      headers: { accept: 'application/x-ndjson' },
    });
    expect(lines.headers.get('content-type')).toContain('application/x-ndjson');
    expect(
      lines.text
        .trim()
        .split('\n')
        .map((line) => JSON.parse(line)),
    ).toEqual([entries[1]]);
  });

  it('refuses everyone but an admin: 403 for people and anonymous callers, nothing erased', async () => {
    const { api } = await start();
    await refundAnswered(api, 'ada', 'ada');
    for (const token of ['ada', 'bob']) {
      expect((await api('GET', '/api/audit', { token })).status).toBe(403);
      const erase = await api('DELETE', '/api/people/ada', { token });
      expect(erase.status).toBe(403);
      expect(erase.body.error.code).toBe('forbidden');
    }
    // An anonymous caller (this server lets one in) is no admin either.
    expect((await api('GET', '/api/audit')).status).toBe(403);
    expect((await api('DELETE', '/api/people/ada')).status).toBe(403);
    const mine = await api('GET', '/api/conversations', { token: 'ada' });
    expect(mine.body.conversations).toHaveLength(1);
  });

  it('heed audit verify names the changed entry, in the database and in an exported file', async () => {
    const { api, path, dir: folder } = await start();
    for (let index = 0; index < 3; index++) await refundAnswered(api, 'ada', 'ada');
    await server!.close();
    server = undefined;

    const run = async (argv: string[]) => {
      const out: string[] = [];
      const err: string[] = [];
      const code = await runOperate(argv[0] as 'audit', argv.slice(1), {
        out: (line) => out.push(line),
        err: (line) => err.push(line),
        env: {},
      });
      return { code, out, err };
    };
    expect(await run(['audit', 'verify', '--db', path])).toEqual({
      code: 0,
      out: ['3 entries, chain intact'],
      err: [],
    });
    const exported = await run(['audit', 'export', '--db', path]);
    expect(exported.code).toBe(0);
    expect(exported.out).toHaveLength(3);
    const file = join(folder, 'audit.jsonl');
    writeFileSync(file, exported.out.join('\n') + '\n');
    expect((await run(['audit', 'verify', '--file', file])).code).toBe(0);

    // One decision rewritten in the export: deny for allow.
    const edited = exported.out.map((line, index) => (index === 1 ? line.replace('"allow"', '"deny"') : line));
    writeFileSync(file, edited.join('\n') + '\n');
    const fromFile = await run(['audit', 'verify', '--file', file]);
    expect(fromFile.code).toBe(1);
    expect(fromFile.err.join('\n')).toMatch(/^seq 2:/);
    expect(brokenLinks(edited.map((line) => JSON.parse(line)))).toEqual([2]);

    // The same change made in the database itself.
    const db = new Database(path);
    db.prepare('UPDATE audit_log SET entry = replace(entry, \'"allow"\', \'"deny"\') WHERE seq = 2').run();
    db.close();
    const fromDb = await run(['audit', 'verify', '--db', path]);
    expect(fromDb.code).toBe(1);
    expect(fromDb.err.join('\n')).toMatch(/^seq 2:/);
  });

  it('erasing a person leaves none of their text in the file or its -wal, and names them erased: elsewhere', async () => {
    const { api, path } = await start();
    const marker = 'MARKER-7f3a9c-only-ada-typed-this';
    const { id: theirs } = (await api('POST', '/api/conversations', { token: 'ada', body: { agent: 'support' } })).body;
    expect(
      (await api('POST', `/api/conversations/${theirs}/messages`, { token: 'ada', body: { content: marker } })).status,
    ).toBe(200);
    // Ada answers in bob's conversation as his delegate: that record stays, with a pseudonym.
    expect((await api('PUT', '/api/me/delegation', { token: 'bob', body: { to: 'ada' } })).status).toBe(200);
    const { id: bobs, actionId } = await refundAnswered(api, 'bob', 'ada');
    const made = await api('POST', '/api/me/tokens', { token: 'ada', body: { name: 'laptop', scopes: ['read'] } });
    expect((await api('GET', '/api/me', { token: made.body.token })).status).toBe(200);
    const bytes = () => Buffer.concat([readFileSync(path), readFileSync(`${path}-wal`, { flag: 'a+' })]);
    expect(bytes().includes(marker)).toBe(true);

    const erased = await api('DELETE', '/api/people/ada', { token: 'root' });
    expect(erased.status).toBe(200);
    expect(erased.body).toMatchObject({ conversations: 1, actions: 0 });
    expect(erased.body.replaced).toBeGreaterThan(0);

    expect(bytes().includes(marker)).toBe(false);
    // Her personal token is gone with her.
    expect((await api('GET', '/api/me', { token: made.body.token })).status).toBe(401);
    expect((await api('GET', `/api/conversations/${theirs}`, { token: 'root' })).status).toBe(404);
    const action = (await api('GET', `/api/conversations/${bobs}/actions`, { token: 'bob' })).body.actions.find(
      (entry: Any) => entry.id === actionId,
    );
    expect(action.resolvedBy).toMatch(/^erased:[0-9a-f]{8}$/);
    expect(action.answeredFor).toBe('bob');
    // The audit log is whole, and names her by the same pseudonym.
    const audit = (await api('GET', '/api/audit', { token: 'root' })).body.entries as Any[];
    expect(brokenLinks(audit)).toEqual([]);
    expect(audit.find((entry) => entry.verb === 'answer').actor).toBe(action.resolvedBy);
    expect(audit.at(-1)).toMatchObject({ verb: 'erase', actor: 'root', decision: action.resolvedBy });
    expect(JSON.stringify(audit)).not.toContain('"ada"');
  });

  it('heed erase --user erases from the command line, as the route does', async () => {
    const { api, path } = await start();
    await refundAnswered(api, 'bob', 'bob');
    await server!.close();
    server = undefined;
    const out: string[] = [];
    const code = await runOperate('erase', ['--user', 'bob', '--db', path], {
      out: (line) => out.push(line),
      err: (line) => out.push(line),
      env: {},
    });
    expect(code).toBe(0);
    expect(JSON.parse(out[0])).toEqual({ conversations: 1, actions: 1, replaced: 0 });
    const db = new Database(path, { readonly: true });
    expect(db.prepare('SELECT count(*) FROM conversations').pluck().get()).toBe(0);
    const entries = db.prepare('SELECT entry FROM audit_log ORDER BY seq').pluck().all() as string[];
    db.close();
    expect(entries.map((entry) => JSON.parse(entry).verb)).toEqual(['answer', 'erase']);
    expect(JSON.parse(entries[1])).toMatchObject({
      actorKey: 'system:cli',
      surface: 'cli',
      decision: expect.stringMatching(/^erased:[0-9a-f]{8}$/),
    });
  });
});
