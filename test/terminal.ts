import { spawnSync, type SpawnSyncReturns } from 'node:child_process';

// A real terminal for the tests of `heed inbox`: a tmux server of the test's own (its own socket, no user
// config), one window, read as a person sees it and typed into one key at a time.

export const hasTmux = spawnSync('tmux', ['-V']).status === 0;

export interface Terminal {
  /** Runs a tmux command against this test's own tmux server. */
  tmux(...args: string[]): SpawnSyncReturns<string>;
  /** Starts `command` in a window of 80×24, in `cwd`. */
  open(command: string, cwd: string): void;
  /** The screen as text; with `attributes`, colours and links kept as their escape sequences. */
  screen(): string;
  /** Waits until the screen shows `wanted` and returns that screen. A deadline, not a wait. */
  until(wanted: string | RegExp, timeoutMs?: number): Promise<string>;
  /** Presses keys one at a time, as a person types (tmux key names such as Enter or Escape, or literal text). */
  press(...keys: string[]): Promise<void>;
  close(): void;
}

const NAMED_KEYS = /^(Enter|Escape|BSpace|Up|Down|Left|Right|Space|End)$/;

export function terminal(socket: string, options: { window?: string; attributes?: boolean } = {}): Terminal {
  const window = options.window ?? 'inbox';
  const tmux = (...args: string[]) =>
    spawnSync('tmux', ['-L', socket, '-f', '/dev/null', ...args], { encoding: 'utf8' });
  const screen = () => tmux('capture-pane', '-p', ...(options.attributes ? ['-e'] : []), '-t', window).stdout;
  return {
    tmux,
    screen,
    open(command, cwd) {
      const started = tmux('new-session', '-d', '-s', window, '-x', '80', '-y', '24', '-c', cwd, command);
      if (started.status !== 0) throw new Error(`tmux did not start: ${started.stderr}`);
    },
    // 20 s: the suite runs four projects on two cores, and a keystroke can wait that long for a turn.
    async until(wanted, timeoutMs = 20_000) {
      const started = Date.now();
      for (;;) {
        const text = screen();
        if (typeof wanted === 'string' ? text.includes(wanted) : wanted.test(text)) return text;
        if (Date.now() - started > timeoutMs) {
          const shown = options.attributes ? JSON.stringify(text) : text;
          throw new Error(`Timed out waiting for ${String(wanted)}; the screen shows:\n${shown}`);
        }
        await new Promise((resolve) => setTimeout(resolve, 50));
      }
    },
    async press(...keys) {
      for (const key of keys) {
        tmux('send-keys', '-t', window, ...(NAMED_KEYS.test(key) ? [key] : ['-l', key]));
        // fixed wait kept: keys arrive apart, as typed (two in one read would be taken as one sequence, Escape then a key as Alt+key)
        await new Promise((resolve) => setTimeout(resolve, 60));
      }
    },
    close() {
      tmux('kill-server');
    },
  };
}
