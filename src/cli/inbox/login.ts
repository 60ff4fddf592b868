import { chmodSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { hostname, homedir } from 'node:os';
import { dirname, join } from 'node:path';

/** What `heed inbox --login` keeps for each server: a personal token (`read answer`) and whose it is. */
interface Credential {
  token: string;
  tokenId: string;
  userId: string;
}

interface CredentialsFile {
  servers: Record<string, Credential>;
}

/** `~/.config/heed/credentials.json` (under `$XDG_CONFIG_HOME` when set), readable by its owner alone. */
export function credentialsPath(): string {
  return join(process.env.XDG_CONFIG_HOME || join(homedir(), '.config'), 'heed', 'credentials.json');
}

function readCredentials(): CredentialsFile {
  try {
    const parsed = JSON.parse(readFileSync(credentialsPath(), 'utf8')) as Partial<CredentialsFile>;
    return { servers: parsed.servers && typeof parsed.servers === 'object' ? parsed.servers : {} };
  } catch {
    return { servers: {} };
  }
}

function writeCredentials(file: CredentialsFile): void {
  const path = credentialsPath();
  mkdirSync(dirname(path), { recursive: true, mode: 0o700 });
  writeFileSync(path, `${JSON.stringify(file, null, 2)}\n`, { mode: 0o600 });
  // A file that was there before keeps its old mode through writeFileSync: set it every time.
  chmodSync(path, 0o600);
}

/** The token `--login` kept for `server`, if any. */
export function storedToken(server: string): Credential | undefined {
  return readCredentials().servers[server];
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * Signs the terminal in through the browser: asks the server for a code, prints where to approve it, and
 * polls until the person does (or says no, or it lapses). Resolves with the exit code.
 */
export async function login(server: string, out: (line: string) => void = console.log): Promise<number> {
  const started = await post(server, '/auth/device', { clientName: hostname() });
  if (!started.ok) {
    out(`heed inbox: ${server} did not start a sign-in (${started.status} ${started.code}): ${started.message}`);
    return 1;
  }
  const { deviceCode, userCode, verificationUriComplete, interval, expiresIn } = started.body as {
    deviceCode: string;
    userCode: string;
    verificationUriComplete: string;
    interval: number;
    expiresIn: number;
  };
  out(`Open ${verificationUriComplete}`);
  out(`and check that it shows the code ${userCode}. Waiting for you to approve it there (Ctrl-C stops).`);
  let wait = interval;
  const deadline = Date.now() + expiresIn * 1000;
  while (Date.now() < deadline) {
    await sleep(wait * 1000);
    const polled = await post(server, '/auth/device/token', { deviceCode });
    if (polled.ok) {
      const { token, tokenId, userId } = polled.body as Credential;
      const file = readCredentials();
      file.servers[server] = { token, tokenId, userId };
      writeCredentials(file);
      out(`Signed in as ${userId}. The token is kept in ${credentialsPath()}; heed inbox --logout revokes it.`);
      return 0;
    }
    if (polled.code === 'authorization_pending') continue;
    if (polled.code === 'slow_down') {
      wait += 5;
      continue;
    }
    out(
      polled.code === 'access_denied'
        ? 'heed inbox: the sign-in was refused in the browser.'
        : `heed inbox: ${polled.message}`,
    );
    return 1;
  }
  out('heed inbox: the code lapsed before it was approved; run heed inbox --login again.');
  return 1;
}

/** Revokes the token kept for `server` and forgets it. */
export async function logout(server: string, out: (line: string) => void = console.log): Promise<number> {
  const file = readCredentials();
  const kept = file.servers[server];
  if (!kept) {
    out(`heed inbox: no sign-in is kept for ${server}.`);
    return 0;
  }
  const response = await fetch(`${server}/api/me/tokens/${encodeURIComponent(kept.tokenId)}`, {
    method: 'DELETE',
    headers: { authorization: `Bearer ${kept.token}` },
  }).catch(() => undefined);
  delete file.servers[server];
  writeCredentials(file);
  // Already revoked (401) or gone (404): forgetting it is all that is left.
  if (response && !response.ok && response.status !== 401 && response.status !== 404) {
    out(
      `heed inbox: forgot the token, but ${server} did not revoke it (${response.status}); revoke it in the console.`,
    );
    return 1;
  }
  out(`Signed out of ${server}: the token is revoked and forgotten.`);
  return 0;
}

async function post(
  server: string,
  path: string,
  body: unknown,
): Promise<{ ok: true; body: unknown } | { ok: false; status: number; code: string; message: string }> {
  let response: Response;
  try {
    response = await fetch(`${server}${path}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify(body),
    });
  } catch (thrown) {
    return { ok: false, status: 0, code: 'unreachable', message: (thrown as Error).message };
  }
  const parsed = (await response.json().catch(() => ({}))) as { error?: { code?: string; message?: string } };
  if (response.ok) return { ok: true, body: parsed };
  return {
    ok: false,
    status: response.status,
    code: parsed.error?.code ?? 'unknown',
    message: parsed.error?.message ?? `${response.status}`,
  };
}
