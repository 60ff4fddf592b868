/**
 * Vitest global setup: everything `npm test` needs beyond `npm ci`, prepared here so that the README's
 * test command works on a fresh machine and leaves nothing behind (see test/setup/prepare.ts).
 */
import { randomBytes } from 'node:crypto';
import buildConsole from '../browser/build-console.js';
import { prepareChromium, prepareDatabase, prepareTempRoot, prepareTmux, say } from './prepare.js';

export default async function setup(): Promise<() => void> {
  const cleanUps: Array<() => void> = [];
  const cleanUp = () => {
    while (cleanUps.length) {
      try {
        cleanUps.pop()!();
      } catch {
        // Best effort: the rest still runs.
      }
    }
  };
  // Ctrl-C or a kill must not leave a database, a server or a temp folder behind either.
  process.once('exit', cleanUp);
  for (const signal of ['SIGINT', 'SIGTERM', 'SIGHUP'] as const) {
    process.once(signal, () => {
      cleanUp();
      if (process.listenerCount(signal) === 0) process.exit(130);
    });
  }

  const temp = prepareTempRoot();
  cleanUps.push(temp.cleanUp);
  // Workers are forked after this and inherit the environment: os.tmpdir() is now inside the run's folder.
  process.env.TMPDIR = temp.path;
  const runTag = randomBytes(3).toString('hex');
  process.env.HEED_TEST_RUN_TAG = runTag;

  const browserSkip = prepareChromium();
  if (browserSkip) process.env.HEED_TEST_SKIP_BROWSER = browserSkip;
  const tmuxSkip = prepareTmux();
  if (tmuxSkip) process.env.HEED_TEST_SKIP_TMUX = tmuxSkip;

  const database = prepareDatabase(runTag);
  if (typeof database === 'string') {
    process.env.HEED_TEST_SKIP_PG = database;
  } else {
    process.env.HEED_TEST_DATABASE_URL = database.url;
    cleanUps.push(database.cleanUp);
  }

  await buildConsole();
  return () => {
    cleanUp();
    say("cleaned up: the run's database, servers and temporary files are gone.");
  };
}
