/** How often the parent process is looked at. */
const EVERY_MS = 500;

/**
 * Calls `onEnd` once the process that started this one is gone, when that process is npm (`npx heed
 * serve`, `npm run …`). npm runs a package's command through a shell: a signal sent to npm's process id
 * is passed to that shell, which ends without passing it on, and this process is left behind, adopted by
 * another parent. Outside npm nothing is watched: a server started with `nohup` or by a supervisor keeps
 * running when whatever started it goes away.
 */
export function stopWhenParentEnds(env: Record<string, string | undefined>, onEnd: () => void): void {
  if (!env.npm_lifecycle_event && !env.npm_command) return;
  const parent = process.ppid;
  const timer = setInterval(() => {
    if (process.ppid === parent) return;
    clearInterval(timer);
    onEnd();
  }, EVERY_MS);
  timer.unref();
}
