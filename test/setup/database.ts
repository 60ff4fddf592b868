/** Global set-up of the projects that use PostgreSQL: a database of the run's own (test/setup/prepare.ts). */
import { onCleanup } from './cleanups.js';
import { prepareDatabase } from './prepare.js';
import runFolder from './run-folder.js';

export default function setup(): () => void {
  const teardown = runFolder();
  if (!process.env.HEED_TEST_DATABASE_URL && !process.env.HEED_TEST_SKIP_PG) {
    const database = prepareDatabase(process.env.HEED_TEST_RUN_TAG!);
    if (typeof database === 'string') {
      process.env.HEED_TEST_SKIP_PG = database;
    } else {
      process.env.HEED_TEST_DATABASE_URL = database.url;
      onCleanup(database.cleanUp);
    }
  }
  return teardown;
}
