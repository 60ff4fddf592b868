import { spawn, spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/** What the inbox asks of the machine it runs on; tests pass their own. */
export interface InboxSystem {
  /** Opens a URL with the system's opener; false when there is none (the view then prints the URL). */
  openUrl(url: string): Promise<boolean>;
  /** Edits a text in the person's editor and returns what was saved; undefined when they set none (`personsEditor`). */
  editText?(text: string): Promise<{ ok: true; text: string } | { ok: false; message: string }>;
}

/**
 * The editor the person chose: `$VISUAL`, else `$EDITOR`; undefined when they chose none (the arguments
 * are then edited in place). npm (`npx heed inbox`, `npm run …`) sets `EDITOR` for the programs it runs,
 * to the person's own `EDITOR` or `VISUAL` when they set one and to `vi` (`notepad.exe` on Windows) when
 * not: under npm that default is npm's choice, not the person's, unless npm's own `editor` setting says
 * it (`npm_config_editor`).
 */
export function personsEditor(env: Record<string, string | undefined>): string | undefined {
  if (env.VISUAL?.trim()) return env.VISUAL;
  const editor = env.EDITOR?.trim() ? env.EDITOR : undefined;
  if (!editor) return undefined;
  const underNpm = Boolean(env.npm_lifecycle_event || env.npm_command || env.npm_execpath);
  if (underNpm && !env.npm_config_editor && (editor === 'vi' || editor === 'notepad.exe')) return undefined;
  return editor;
}

function opener(): string | undefined {
  if (process.platform === 'darwin') return 'open';
  if (process.platform === 'win32') return undefined;
  // Over SSH there is usually no desktop to open a browser on.
  if (!process.env.DISPLAY && !process.env.WAYLAND_DISPLAY) return undefined;
  return 'xdg-open';
}

/**
 * The real machine. The editor runs with the terminal handed over: Ink stops reading while the
 * synchronous child has the keyboard, and `suspend`/`resume` let the caller leave raw mode around it.
 */
export function systemOf(hooks: { suspend(): void; resume(): void }): InboxSystem {
  const editor = personsEditor(process.env);
  return {
    openUrl: (url) =>
      new Promise((resolve) => {
        const command = opener();
        if (!command) return resolve(false);
        // The URL is one argument, never a shell line: nothing in it can run as a command.
        const child = spawn(command, [url], { stdio: 'ignore', detached: true });
        child.once('error', () => resolve(false));
        child.once('spawn', () => {
          child.unref();
          resolve(true);
        });
      }),
    ...(editor
      ? {
          async editText(text: string) {
            const dir = mkdtempSync(join(tmpdir(), 'heed-inbox-'));
            const file = join(dir, 'arguments.json');
            try {
              writeFileSync(file, text);
              hooks.suspend();
              // $EDITOR may carry flags (`code --wait`): the shell splits it, the file name is passed as "$1".
              const result = spawnSync('/bin/sh', ['-c', `${editor} "$1"`, 'editor', file], { stdio: 'inherit' });
              hooks.resume();
              if (result.error)
                return {
                  ok: false as const,
                  message: `The editor (${editor}) could not start: ${result.error.message}.`,
                };
              if (result.status !== 0)
                return {
                  ok: false as const,
                  message: `The editor (${editor}) exited with code ${result.status}; nothing changed.`,
                };
              return { ok: true as const, text: readFileSync(file, 'utf8') };
            } finally {
              rmSync(dir, { recursive: true, force: true });
            }
          },
        }
      : {}),
  };
}
