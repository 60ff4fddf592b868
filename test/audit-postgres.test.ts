import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runOperate } from '../src/cli/operate.js';
import { postgresStore } from '../src/store/postgres/postgres-store.js';
import { startServer, tokens, type TestServer } from './http-fixtures.js';
import { freshDatabase, pgServer, pgSkipReason, type TestDatabase } from './pg.js';

/*
 * The audit log on PostgreSQL (docs/operating.md, The audit log): two instances on one database write one chain,
 * `heed audit verify --database-url` accepts it, and names the entry changed in the database.
 */

let database: TestDatabase | undefined;

describe.skipIf(!pgServer)(`the audit log on PostgreSQL${pgServer ? '' : ` (${pgSkipReason})`}`, () => {
  beforeAll(async () => {
    database = await freshDatabase();
  });
  afterAll(async () => {
    await database?.drop();
  });

  it('two instances write one chain; verify finds the changed entry', async () => {
    const servers: TestServer[] = [];
    for (let index = 0; index < 2; index++)
      servers.push(
        await startServer({ store: postgresStore({ connectionString: database!.url, max: 4 }), auth: { tokens } }),
      );
    try {
      // Answers on both instances at once: each entry chains onto the one before, whichever instance wrote it.
      await Promise.all(
        Array.from({ length: 10 }, async (_, index) => {
          const api = servers[index % 2].api;
          const { id } = (await api('POST', '/api/conversations', { token: 'ada', body: { agent: 'support' } })).body;
          const sent = await api('POST', `/api/conversations/${id}/messages`, {
            token: 'ada',
            body: { content: 'refund' },
          });
          const answered = await api('POST', `/api/conversations/${id}/actions/${sent.body.pendingActions[0].id}`, {
            token: 'ada',
            body: { resolution: { type: 'approval', decision: 'allow' } },
          });
          expect(answered.status).toBe(200);
        }),
      );
    } finally {
      for (const server of servers) await server.close();
    }
    const run = async () => {
      const lines: string[] = [];
      const code = await runOperate('audit', ['verify', '--database-url', database!.url], {
        out: (line) => lines.push(line),
        err: (line) => lines.push(line),
        env: {},
      });
      return { code, lines };
    };
    expect(await run()).toEqual({ code: 0, lines: ['10 entries, chain intact'] });

    const client = new pg.Client({ connectionString: database!.url });
    await client.connect();
    await client.query(`UPDATE audit_log SET entry = replace(entry, '"allow"', '"deny"') WHERE seq = 7`);
    await client.end();
    const broken = await run();
    expect(broken.code).toBe(1);
    expect(broken.lines[0]).toMatch(/^seq 7:/);
  });
});
