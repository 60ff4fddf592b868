/**
 * What the run's global set-ups leave to undo, undone once at the end of the run, or on Ctrl-C or a
 * kill, so that no database, server, browser or temp folder outlives it. Each project's set-up is loaded
 * on its own, so the list lives on `globalThis` and the exit handlers are installed once.
 */
const key = Symbol.for('heed.test.cleanups');

interface Registry {
  steps: Array<() => void>;
}

function registry(): Registry {
  const holder = globalThis as unknown as Record<symbol, Registry | undefined>;
  let found = holder[key];
  if (!found) {
    found = { steps: [] };
    holder[key] = found;
    const undo = () => runCleanups();
    process.once('exit', undo);
    for (const signal of ['SIGINT', 'SIGTERM', 'SIGHUP'] as const) {
      process.once(signal, () => {
        undo();
        if (process.listenerCount(signal) === 0) process.exit(130);
      });
    }
  }
  return found;
}

/** Adds a step to undo at the end (steps run last first). */
export function onCleanup(step: () => void): void {
  registry().steps.push(step);
}

/** Runs every step still to run (a step that throws does not stop the others); how many ran. */
export function runCleanups(): number {
  const { steps } = registry();
  const count = steps.length;
  while (steps.length) {
    try {
      steps.pop()!();
    } catch {
      // Best effort: the rest still runs.
    }
  }
  return count;
}
