import type { LanguageModelV3 } from '@ai-sdk/provider';
import type { HeedConfig } from '../config.js';
import { demoAgents } from '../demo/agents.js';
import { demoUsers } from '../demo/users.js';
import { mailCapture, type CapturedMail } from '../notify/mail-capture.js';
import type { DemoInfo } from '../protocol/responses.js';

/**
 * The demo's sign-in tokens. Fixed and public on purpose: `GET /api/demo` hands them to anyone who
 * reaches the server, which is why the demo has users only while it listens on loopback.
 */
const DEMO_TOKENS: Readonly<Record<string, string>> = Object.freeze({ ada: 'demo-ada', grace: 'demo-grace' });

export interface DemoServer {
  config: HeedConfig;
  /** The users and tokens `GET /api/demo` serves; undefined when the demo has no users (beyond loopback). */
  demo?: DemoInfo;
  /**
   * Whether to start the demo's waiting requests: only on the scripted model, where they cost nothing and
   * come out the same every time (a real model would be called a few times at every first start).
   */
  seed: boolean;
}

/**
 * What `heed serve` runs without a config: the demo agents (on a real model when OPENAI_API_KEY is set),
 * and, on loopback, the demo users (signed in with the tokens above) with their mail kept in `mailDir`.
 */
export async function demoServer(options: {
  env: Record<string, string | undefined>;
  log: (line: string) => void;
  /** Whether the server listens on loopback only: only then does the demo have users. */
  loopback: boolean;
  mailDir: string;
}): Promise<DemoServer> {
  const { env, log } = options;
  let model: LanguageModelV3 | undefined;
  if (env.OPENAI_API_KEY) {
    const { createOpenAI } = await import('@ai-sdk/openai');
    const provider = createOpenAI({
      apiKey: env.OPENAI_API_KEY,
      ...(env.OPENAI_BASE_URL ? { baseURL: env.OPENAI_BASE_URL } : {}),
    });
    const modelId = env.OPENAI_MODEL ?? 'gpt-4o-mini';
    // Chat Completions is what OpenAI-compatible servers (Ollama, vLLM, …) speak too.
    model = provider.chat(modelId);
    log(`Demo agents on ${modelId}${env.OPENAI_BASE_URL ? ` at ${env.OPENAI_BASE_URL}` : ''}.`);
  } else {
    log('Demo agents on a scripted model (set OPENAI_API_KEY to use a real one).');
  }
  const delay = env.HEED_DEMO_DELAY_MS === undefined ? undefined : Number(env.HEED_DEMO_DELAY_MS);
  const agents = demoAgents({ model, chunkDelayMs: delay });
  if (!options.loopback) {
    log(
      'Demo users are off: this server listens beyond loopback, where anyone could sign in as them. Write a config with auth.tokens to have users.',
    );
    return { config: { agents }, seed: false };
  }
  const ids = new Set(demoUsers.map((user) => user.userId));
  const demo: DemoInfo = {
    users: demoUsers.map((user) => ({ userId: user.userId, name: user.name, token: DEMO_TOKENS[user.userId] })),
  };
  if (model)
    log(
      'No requests are started for the demo users on a real model (each would cost model calls): ask helpdesk or finance for a refund.',
    );
  return {
    demo,
    seed: !model,
    config: {
      agents,
      auth: { tokens: Object.fromEntries(demo.users.map((user) => [user.token, user.userId])) },
      notify: {
        email: {
          transport: mailCapture({ dir: options.mailDir, onMail: (mail) => log(mailLine(mail)) }),
          from: 'Heed demo <heed@localhost>',
          // Mailed to the user ids themselves, so a link answers (and votes) as that user. The questions a
          // conversation opens with are not mailed: the person is in the conversation as they are asked.
          to: ({ action, conversation, delegates }) => {
            if (action.kind === 'question' && action.toolName === 'intake') return null;
            const approvers = (action as { approvers?: string[] }).approvers;
            const people = approvers?.length ? approvers : conversation.ownerId ? [conversation.ownerId] : [];
            // Someone who handed their requests over (PUT /api/me/delegation): their delegate is mailed too.
            return [...people, ...delegates.map((delegate) => delegate.to)].filter((id) => ids.has(id));
          },
        },
      },
    },
  };
}

/** One kept mail, as a line of the server's output. */
export function mailLine(mail: CapturedMail): string {
  return `Mail for ${mail.to}: ${mail.subject}${mail.page ? ` → ${mail.page}` : ''}`;
}
