/**
 * `heed serve` as a separate process, for the tests that restart or kill it: start, call over
 * loopback, stop with any signal.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { CLI, root } from './cli.js';
const running = new Set<ChildProcess>();

export interface ServeProcess {
  url: string;
  pid: number;
  child: ChildProcess;
  output: () => string;
  /** Resolves with the exit code, or the signal that ended it. */
  exited: Promise<number | NodeJS.Signals | null>;
  /** Sends the signal and resolves once the process is gone. */
  stop(signal?: NodeJS.Signals): Promise<number | NodeJS.Signals | null>;
}

export async function startServe(args: string[], env: Record<string, string> = {}): Promise<ServeProcess> {
  const { child, output, exited } = spawnServe(args, env);
  const url = await listeningUrl(output, exited);
  return {
    url,
    pid: child.pid!,
    child,
    output,
    exited,
    stop: (signal = 'SIGTERM') => {
      child.kill(signal);
      return exited;
    },
  };
}

/** Starts `heed serve` without waiting for it to listen (a process meant to die early may never print it). */
export function spawnServe(
  args: string[],
  env: Record<string, string> = {},
): Pick<ServeProcess, 'child' | 'output' | 'exited'> {
  const child = spawn(process.execPath, [CLI, 'serve', '--port', '0', ...args], {
    cwd: root,
    env: { ...process.env, OPENAI_API_KEY: '', HEED_DEMO_DELAY_MS: '0', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  running.add(child);
  let output = '';
  child.stdout!.on('data', (chunk) => (output += chunk));
  child.stderr!.on('data', (chunk) => (output += chunk));
  const exited = new Promise<number | NodeJS.Signals | null>((resolve) =>
    child.once('exit', (code, signal) => {
      running.delete(child);
      resolve(code ?? signal);
    }),
  );
  return { child, output: () => output, exited };
}

/** Resolves with the address `heed serve` prints once it listens; rejects with its output if it exits first. */
export function listeningUrl(output: () => string, exited: Promise<unknown>): Promise<string> {
  return new Promise<string>((resolve, reject) => {
    const timer = setInterval(() => {
      const match = /Heed listening on (http:\/\/\S+)/.exec(output());
      if (match) {
        clearInterval(timer);
        resolve(match[1]);
      }
    }, 20);
    void exited.then(() => {
      clearInterval(timer);
      reject(new Error(`heed serve exited early:\n${output()}`));
    });
  });
}

/** Kills whatever is still running (for afterAll). */
export function killAll(): void {
  for (const child of running) child.kill('SIGKILL');
}

export interface Called {
  status: number;
  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  body: any;
}

/** A JSON call as `token`'s user (null: anonymous); rejects when the connection is lost (the server died). */
export async function call(
  url: string,
  method: string,
  path: string,
  body?: unknown,
  token: string | null = 'token-ada',
): Promise<Called> {
  const headers: Record<string, string> = { 'content-type': 'application/json' };
  if (token) headers.authorization = `Bearer ${token}`;
  const response = await fetch(`${url}${path}`, {
    method,
    headers,
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const text = await response.text();
  return { status: response.status, body: text ? JSON.parse(text) : undefined };
}
