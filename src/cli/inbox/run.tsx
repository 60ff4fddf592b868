import { render } from 'ink';
import { parseArgs } from 'node:util';
import { createClient, HeedClientError, type ActionView, type HeedClient } from '../../client/index.js';
import { InboxApp, readInbox } from './app.js';
import { ageOf, kindWord, timeLeftOf } from './format.js';
import { headlineOf } from '../../kinds/index.js';
import { connectionSentence } from './inbox-state.js';
import { systemOf } from './system.js';
import { terminalSafeClient } from './terminal-text.js';
import { EXIT } from '../problems.js';
import { login, logout, storedToken } from './login.js';

export const inboxUsage = `Usage: heed inbox [--url http://127.0.0.1:3000] [--token <token>] [--json]
       heed inbox --login [--url …] · heed inbox --logout [--url …]

  --url <address>   the Heed server (also HEED_URL; default http://127.0.0.1:3000)
  --token <token>   sent as Authorization: Bearer <token> (also HEED_TOKEN); the inbox lists
                    what waits on that token's user. Without one, the token --login kept for
                    this server; against the demo (heed serve with no config), demo user ada
  --login           sign this terminal in through the browser: open the address it prints,
                    approve the code there; the token is kept in ~/.config/heed/credentials.json
  --logout          revoke the kept token and forget it
  --json            print what waits as JSON lines (one action each, oldest first) and exit
  --interval <s>    how often the list is read again, in seconds (default 3)

  Keys: ↑↓ or j k move, Enter opens, / filters, ? shows every key, Esc goes back, q quits.
  Space marks a request; A approves, D denies the marked (after a summary, y sends).
  In a request: a allow, d deny, e edit, r remember (approvals); numbers or hotkeys pick,
  Space toggles, Enter confirms, s skips, x dismisses (questions); o opens, a accepts,
  d declines (URLs). e edits in $VISUAL or $EDITOR when you set one (npm's own EDITOR=vi
  does not count), else in place.`;

/** `heed inbox`: resolves with the exit code once the person quits (or the list is printed). */
export async function runInbox(args: string[]): Promise<number> {
  let values;
  try {
    ({ values } = parseArgs({
      args,
      options: {
        url: { type: 'string' },
        token: { type: 'string' },
        json: { type: 'boolean' },
        login: { type: 'boolean' },
        logout: { type: 'boolean' },
        interval: { type: 'string' },
        help: { type: 'boolean', short: 'h' },
      },
      strict: true,
    }));
  } catch (thrown) {
    const first = (thrown instanceof Error ? thrown.message : String(thrown)).split('. ')[0].replace(/\.$/, '');
    console.error(`heed inbox: ${first} (heed inbox --help lists the options).`);
    return EXIT.usage;
  }
  if (values.help) {
    console.log(inboxUsage);
    return 0;
  }
  const server = (values.url ?? process.env.HEED_URL ?? 'http://127.0.0.1:3000').replace(/\/+$/, '');
  let token = values.token ?? (process.env.HEED_TOKEN || undefined);
  if (!/^https?:$/.test(protocolOf(server))) {
    console.error(`heed inbox: --url must be an http or https address such as http://127.0.0.1:3000; got "${server}".`);
    return EXIT.usage;
  }
  if (values.login) return login(server);
  if (values.logout) return logout(server);
  token ??= storedToken(server)?.token;
  const intervalSeconds = values.interval === undefined ? 3 : Number(values.interval);
  if (!Number.isFinite(intervalSeconds) || intervalSeconds < 0.5 || intervalSeconds > 3600) {
    console.error(`heed inbox: --interval takes seconds from 0.5 to 3600; got ${values.interval}.`);
    return EXIT.usage;
  }
  // No token, and the server runs the demo: its first user's inbox (anyone who reaches the demo may use its tokens).
  let who: string | undefined;
  if (!token) {
    // No demo there (or no server): the next lines say a token is needed.
    const demo = await createClient({ baseUrl: server })
      .demo()
      .catch(() => undefined);
    const user = demo?.users[0];
    if (user) {
      token = user.token;
      who = `${user.userId} (demo)`;
    }
  }
  const client = terminalSafeClient(createClient({ baseUrl: server, token }));

  // The first read doubles as the check of the address and the token: a mistake is one sentence.
  let first: ActionView[];
  try {
    first = await readInbox(client);
  } catch (thrown) {
    console.error(`heed inbox: ${firstReadSentence(thrown, server, Boolean(token))}`);
    return EXIT.failed;
  }

  if (values.json) {
    const agents = await agentNames(client, first);
    for (const action of first)
      process.stdout.write(`${JSON.stringify({ ...action, agent: agents.get(action.conversationId) ?? null })}\n`);
    return 0;
  }
  if (!process.stdin.isTTY) {
    // Without a keyboard nothing can be answered: list what waits as text, as a script would want it.
    console.error(
      'heed inbox: the input is not a terminal, so nothing can be answered here; listing what waits (--json for scripts).',
    );
    const agents = await agentNames(client, first);
    const now = Date.now();
    for (const action of first) {
      console.log(
        [
          kindWord(action),
          agents.get(action.conversationId) ?? '',
          headlineOf(action),
          ageOf(action, now),
          timeLeftOf(action, now),
        ]
          .filter(Boolean)
          .join('  ·  '),
      );
    }
    return 0;
  }

  const color = !process.env.NO_COLOR && Boolean(process.stdout.isTTY);
  const stdin = process.stdin;
  // eslint-disable-next-line prefer-const
  let instance: ReturnType<typeof render>;
  const system = systemOf({
    suspend: () => stdin.setRawMode(false),
    resume() {
      stdin.setRawMode(true);
      // The editor drew over the screen: clear it so the next frame is drawn whole.
      process.stdout.write('\u001B[2J\u001B[3J\u001B[H');
      instance.clear();
    },
  });
  instance = render(
    <InboxApp
      client={client}
      server={server}
      anonymous={!token}
      who={who}
      system={system}
      color={color}
      intervalMs={intervalSeconds * 1000}
    />,
    {
      exitOnCtrlC: true,
    },
  );
  await instance.waitUntilExit();
  return 0;
}

function protocolOf(url: string): string {
  try {
    return new URL(url).protocol;
  } catch {
    return '';
  }
}

async function agentNames(client: HeedClient, actions: ActionView[]): Promise<Map<string, string>> {
  const names = new Map<string, string>();
  if (actions.length === 0) return names;
  for (const conversation of await client.listConversations({ limit: 200 }).catch(() => []))
    names.set(conversation.id, conversation.agent);
  for (const id of new Set(actions.map((action) => action.conversationId))) {
    if (names.has(id)) continue;
    // Only for the agent's name: a conversation that cannot be read is listed without one.
    const snapshot = await client.getConversation(id, { limit: 1 }).catch(() => undefined);
    if (snapshot) names.set(id, snapshot.conversation.agent);
  }
  return names;
}

/** Why the first read failed, as one sentence naming the server. */
export function firstReadSentence(thrown: unknown, server: string, hasToken: boolean): string {
  if (HeedClientError.isInstance(thrown)) {
    if (thrown.status === 401) {
      return hasToken
        ? `The server at ${server} does not know that token (401 ${thrown.code}). Check --token or HEED_TOKEN.`
        : `The server at ${server} needs a token (401 ${thrown.code}). Pass --token, set HEED_TOKEN, or run heed inbox --login.`;
    }
    if (thrown.code === 'http_error')
      return `${server} does not answer like a Heed server: GET /api/inbox got ${thrown.status}. Check --url.`;
    return `The server at ${server} refused to list the inbox: ${thrown.message} (${thrown.status} ${thrown.code})`;
  }
  if (thrown instanceof SyntaxError)
    return `${server} does not answer like a Heed server: GET /api/inbox did not return JSON. Check --url.`;
  return `Could not reach a Heed server at ${server}. ${connectionSentence(thrown)}`;
}
