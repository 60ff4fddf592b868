/**
 * Global set-up of every project that starts servers: one temporary folder for the run (each test's
 * `os.tmpdir()` points into it) and the run's tag, which names its PostgreSQL databases. Done once even
 * when several projects list it.
 */
import { randomBytes } from 'node:crypto';
import { onCleanup, runCleanups } from './cleanups.js';
import { prepareTempRoot, say } from './prepare.js';

export default function setup(): () => void {
  if (!process.env.HEED_TEST_RUN_TAG) {
    const temp = prepareTempRoot();
    onCleanup(temp.cleanUp);
    // Workers are forked after this and inherit the environment: os.tmpdir() is now inside the run's folder.
    process.env.TMPDIR = temp.path;
    process.env.HEED_TEST_RUN_TAG = randomBytes(3).toString('hex');
  }
  return () => {
    if (runCleanups() > 0) say("cleaned up: the run's database, servers, browser and temporary files are gone.");
  };
}
