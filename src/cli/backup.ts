import { parseArgs } from 'node:util';
import { HeedError } from '../errors.js';
import { backupSqlite } from '../store/sqlite/backup.js';
import { EXIT } from './problems.js';

const usage = `Usage: heed backup [--db ./heed.db] --to <file>

  Copies the SQLite store to a new file while heed serve keeps running on it (SQLite's online
  backup: one consistent snapshot, checked before it is named <file>). Start a server on the copy
  with heed serve --db <file>. For PostgreSQL, use pg_dump (docs/operating.md).

  --db <file>   the SQLite file heed serve uses (default ./heed.db)
  --to <file>   the copy to make; it must not exist yet

Exit codes: 0 copied, 1 the copy failed (the line printed says why), 2 the command line is wrong.`;

/** `heed backup`: resolves with the exit code. */
export async function runBackup(args: string[]): Promise<number> {
  let values;
  try {
    ({ values } = parseArgs({
      args,
      options: {
        db: { type: 'string' },
        to: { type: 'string' },
        'database-url': { type: 'string' },
        help: { type: 'boolean', short: 'h' },
      },
      strict: true,
    }));
  } catch (thrown) {
    const first = (thrown instanceof Error ? thrown.message : String(thrown)).split('. ')[0].replace(/\.$/, '');
    console.error(`heed backup: ${first} (heed backup --help lists the options).`);
    return EXIT.usage;
  }
  if (values.help) {
    console.log(usage);
    return EXIT.ok;
  }
  if (values['database-url'] !== undefined) {
    console.error('heed backup: copies a SQLite file; back up a PostgreSQL database with pg_dump (docs/operating.md).');
    return EXIT.usage;
  }
  if (!values.to?.trim()) {
    console.error('heed backup: --to <file> is needed: the new file to copy the store to.');
    return EXIT.usage;
  }
  const from = values.db ?? './heed.db';
  const started = performance.now();
  try {
    const copy = await backupSqlite(from, values.to);
    const ms = Math.round(performance.now() - started);
    console.log(
      `Backed up ${from} to ${values.to}: ${copy.conversations} conversations, ${copy.bytes} bytes, in ${ms} ms.`,
    );
    return EXIT.ok;
  } catch (thrown) {
    const reason = HeedError.isInstance(thrown) || thrown instanceof Error ? thrown.message : String(thrown);
    console.error(`heed backup: ${reason}`);
    return EXIT.failed;
  }
}
