import { existsSync, readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { chainChecker, verifyChain, type AuditEntry, type ChainCheck } from '../store/audit.js';
import type { Store } from '../store/store.js';
import { erasePerson } from '../engine/erase.js';
import { personValues } from '../http/person-values.js';
import { postgresStore } from '../store/postgres/postgres-store.js';
import { sqliteStore } from '../store/sqlite/sqlite-store.js';
import { EXIT, databaseUrlProblem } from './problems.js';

/*
 * `heed audit export|verify` and `heed erase` (docs/operating.md): run against the store directly, beside or
 * without a running server.
 */

export const operateUsage = `       heed audit export [--since <date>] [--db ./heed.db | --database-url postgres://…]   the audit log as JSON lines on stdout
       heed audit verify [--file audit.jsonl | --db … | --database-url …]   check the chain: exit 0 and the count, or 1 and the first bad seq
       heed erase --user <id> [--db … | --database-url …]   erase a person (their conversations, sessions, tokens; their id elsewhere)`;

const PAGE = 1000;

type Write = (line: string) => void;

/** Runs `heed audit …` or `heed erase …`; resolves with the exit code. */
export async function runOperate(
  command: 'audit' | 'erase',
  argv: string[],
  io: { out: Write; err: Write; env: NodeJS.ProcessEnv } = {
    out: (line) => process.stdout.write(`${line}\n`),
    err: (line) => process.stderr.write(`${line}\n`),
    env: process.env,
  },
): Promise<number> {
  const sub = command === 'audit' ? argv[0] : undefined;
  const name = command === 'audit' ? `heed audit ${sub ?? ''}`.trim() : 'heed erase';
  if (command === 'audit' && sub !== 'export' && sub !== 'verify') {
    io.err(`heed audit: say export or verify (heed --help shows them).`);
    return EXIT.usage;
  }
  let values;
  try {
    ({ values } = parseArgs({
      args: command === 'audit' ? argv.slice(1) : argv,
      options: {
        db: { type: 'string' },
        'database-url': { type: 'string' },
        since: { type: 'string' },
        file: { type: 'string' },
        user: { type: 'string' },
      },
      strict: true,
    }));
  } catch (thrown) {
    io.err(`${name}: ${(thrown instanceof Error ? thrown.message : String(thrown)).split('. ')[0]}.`);
    return EXIT.usage;
  }

  if (sub === 'verify' && values.file !== undefined) return verifyFile(values.file, io);
  const user = values.user ?? '';
  if (command === 'erase' && user.trim() === '') {
    io.err('heed erase: name the person with --user <id>.');
    return EXIT.usage;
  }
  let since: string | undefined;
  if (values.since !== undefined) {
    const ms = Date.parse(values.since);
    if (Number.isNaN(ms)) {
      io.err(`${name}: --since takes a date or time (2026-01-31, 2026-01-31T09:00:00Z); got "${values.since}".`);
      return EXIT.usage;
    }
    since = new Date(ms).toISOString();
  }
  const opened = openStore(values.db, values['database-url'], io.env);
  if ('problem' in opened) {
    io.err(`${name}: ${opened.problem}`);
    return EXIT.usage;
  }
  const store = opened.store;
  try {
    await store.migrate();
    if (command === 'erase') {
      const counts = await erasePerson(store, {
        userId: user,
        // Whoever holds the database: no signed-in person.
        by: 'system:cli',
        surface: 'cli',
        at: new Date().toISOString(),
        ...personValues(user),
      });
      io.out(JSON.stringify(counts));
      return EXIT.ok;
    }
    if (sub === 'export') {
      for await (const entry of entries(store, since)) io.out(JSON.stringify(entry));
      return EXIT.ok;
    }
    const checker = chainChecker(await store.auditAnchor());
    for await (const entry of entries(store)) {
      const bad = checker.next(entry);
      if (bad) return report(bad, io);
    }
    return report(checker.done(), io);
  } finally {
    await store.close();
  }
}

function openStore(
  db: string | undefined,
  url: string | undefined,
  env: NodeJS.ProcessEnv,
): { store: Store } | { problem: string } {
  if (db !== undefined && url !== undefined)
    return { problem: 'give --db (a SQLite file) or --database-url, not both.' };
  const databaseUrl = url ?? (db === undefined ? env.HEED_DATABASE_URL || undefined : undefined);
  if (databaseUrl !== undefined) {
    const problem = databaseUrlProblem(databaseUrl, url === undefined ? 'HEED_DATABASE_URL' : '--database-url');
    return problem ? { problem } : { store: postgresStore({ connectionString: databaseUrl }) };
  }
  const path = resolve(db ?? './heed.db');
  // Never make a new, empty file by mistake: there would be nothing to export, verify or erase.
  if (!existsSync(path)) return { problem: `there is no database at ${path} (--db names it).` };
  return { store: sqliteStore({ path, checkpoint: 'inline' }) };
}

/** Every entry of the store from the front (or `since`), a page at a time. */
async function* entries(store: Store, since?: string): AsyncGenerator<AuditEntry> {
  let after = 0;
  for (;;) {
    const page = await store.listAudit({ after, limit: PAGE, ...(since !== undefined ? { since } : {}) });
    yield* page;
    if (page.length < PAGE) return;
    after = page[page.length - 1].seq;
  }
}

function verifyFile(file: string, io: { out: Write; err: Write }): number {
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch {
    io.err(`heed audit verify: cannot read ${file}.`);
    return EXIT.failed;
  }
  const lines = text.split('\n').filter((line) => line.trim() !== '');
  const parsed: AuditEntry[] = [];
  for (const [index, line] of lines.entries()) {
    try {
      parsed.push(JSON.parse(line) as AuditEntry);
    } catch {
      io.err(`heed audit verify: line ${index + 1} of ${file} is not JSON.`);
      return EXIT.failed;
    }
  }
  // An export may start after pruning or at --since: its first entry's prevHash is where it starts.
  return report(verifyChain(parsed), io);
}

function report(check: ChainCheck, io: { out: Write; err: Write }): number {
  if (check.ok) {
    io.out(`${check.count} entries, chain intact`);
    return EXIT.ok;
  }
  io.err(`seq ${check.seq}: ${check.reason}`);
  return EXIT.failed;
}
