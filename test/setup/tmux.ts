/** Global set-up of the terminal tests: tmux, the real terminal `heed inbox` is typed into (prepare.ts). */
import { prepareTmux } from './prepare.js';
import runFolder from './run-folder.js';

export default function setup(): () => void {
  const teardown = runFolder();
  if (!process.env.HEED_TEST_SKIP_TMUX) {
    const skip = prepareTmux();
    if (skip) process.env.HEED_TEST_SKIP_TMUX = skip;
  }
  return teardown;
}
