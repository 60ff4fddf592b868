import { createHash } from 'node:crypto';
import type nodemailer from 'nodemailer';
import { requireOptional } from '../optional-dependency.js';
import type { EmailConfig } from '../config.js';
import { byKind, summaryOf, titleOf, type ByKind } from '../kinds/index.js';
import { channelPlatform } from '../protocol/conversation.js';
import type { ActionView } from '../views.js';
import type { ActionLinks } from './links.js';

export interface ActionMail {
  subject: string;
  text: string;
  html: string;
  messageId: string;
  /** The conversation's thread: every mail about it replies to the same root. */
  inReplyTo: string;
  references: string;
}

const escape = (text: string) =>
  text.replace(/[&<>"']/g, (char) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[char]!);

function domainOf(from: string): string {
  const match = /@([A-Za-z0-9.-]+)/.exec(from);
  return match ? match[1] : 'heed.invalid';
}

const button = (href: string, label: string, primary = false) =>
  `<a href="${escape(href)}" style="display:inline-block;margin:4px 8px 4px 0;padding:8px 16px;border-radius:6px;text-decoration:none;` +
  `font-weight:600;${primary ? 'background:#2f5bd3;color:#ffffff;' : 'background:#eef1f8;color:#1d2a4d;border:1px solid #c9d2e8;'}">${escape(label)}</a>`;

type Written = { html: string[]; text: string[] };

/** Who a request comes from: the agent that asks, and the person whose conversation it is (null when none is signed in). */
export interface Asker {
  agent: string;
  requester: string | null;
  /** For a conversation with no owner: the chat workspace it lives in ("Slack"), if any. */
  place?: string;
  /** For a child agent's request: the agents it came down through from `agent`, the one asking last. */
  via?: string[];
}

/**
 * "Requested by ada, through the agent refunds." — every mail says who asked; `mark` sets the names apart (bold
 * in HTML). A child's request names its lead and then the children: "…, through the agent lead, which asked the agent ops."
 */
export function askedLine(asker: Asker, mark: (name: string) => string = (name) => name): string {
  const agent = `the agent ${mark(asker.agent)}${(asker.via ?? []).map((name) => `, which asked the agent ${mark(name)}`).join('')}`;
  if (asker.requester) return `Requested by ${mark(asker.requester)}, through ${agent}.`;
  return `Requested through ${agent}, ${asker.place ? `in a ${asker.place} thread` : 'by someone not signed in'}.`;
}

function pushAsked(asker: Asker, { html, text }: Written) {
  // Names escaped as they are marked; the sentence around them has nothing to escape.
  html.push(`<p style="color:#555">${askedLine(asker, (name) => `<b>${escape(name)}</b>`)}</p>`);
  text.push(askedLine(asker));
}

/** What a mail says about a request of each kind that has its own body; the others get `genericMailBody`. */
const bodies: ByKind<void, [links: ActionLinks | undefined, asker: Asker, out: Written]> = {
  approval(action, links, asker, { html, text }) {
    html.push(`<h2 style="margin:0 0 8px">${escape(action.title ?? action.toolName)}</h2>`);
    text.push(action.title ?? action.toolName, '');
    pushAsked(asker, { html, text });
    if (action.summary) (html.push(`<p>${escape(action.summary)}</p>`), text.push('', action.summary));
    html.push(`<p style="color:#555">It wants to run <code>${escape(action.toolName)}</code> with:</p>`);
    const args = JSON.stringify(action.args ?? {}, null, 2);
    html.push(
      `<pre style="background:#f6f7f9;padding:12px;border-radius:6px;white-space:pre-wrap">${escape(args)}</pre>`,
    );
    text.push('', `Tool: ${action.toolName}`, `Arguments:`, args, '');
    if (links?.allow && links.deny) {
      html.push(
        `<p>${button(links.allow, 'Approve…', true)}${button(links.deny, 'Deny…')}${button(links.page, 'Review or edit')}</p>`,
      );
      text.push(`Approve: ${links.allow}`, `Deny: ${links.deny}`, `Review or edit: ${links.page}`);
    }
  },
  question(action, links, asker, { html, text }) {
    pushAsked(asker, { html, text });
    text.push('');
    if (action.preamble) (html.push(`<p>${escape(action.preamble)}</p>`), text.push(action.preamble, ''));
    for (const question of action.questions ?? []) {
      html.push(`<h3 style="margin:16px 0 4px">${escape(question.prompt)}</h3>`);
      text.push(question.prompt);
      if (question.description)
        (html.push(`<p style="color:#555">${escape(question.description)}</p>`), text.push(question.description));
      const choices = links?.options?.[question.id];
      if (question.options?.length) {
        html.push(
          `<p>${question.options.map((option) => (choices?.[option.value] ? button(choices[option.value], option.label) : escape(option.label))).join(' ')}</p>`,
        );
        for (const option of question.options)
          text.push(`- ${option.label}${choices?.[option.value] ? `: ${choices[option.value]}` : ''}`);
      }
      text.push('');
    }
    if (links) (html.push(`<p>${button(links.page, 'Answer', true)}</p>`), text.push(`Answer: ${links.page}`));
  },
  url(action, links, asker, { html, text }) {
    html.push(`<h2 style="margin:0 0 8px">${escape(action.title ?? 'Please open this page')}</h2>`);
    text.push(action.title ?? 'Please open this page');
    pushAsked(asker, { html, text });
    if (action.message) html.push(`<p>${escape(action.message)}</p>`);
    html.push(`<p><code>${escape(action.url ?? '')}</code></p>`);
    text.push(action.message ?? '', action.url ?? '', '');
    if (links)
      (html.push(`<p>${button(links.page, 'Open the request', true)}</p>`),
        text.push(`Open the request: ${links.page}`));
  },
  // Answered by the page, never mailed (its presentation's `answeredByLink` is false): nothing to write.
  client_tool: () => {},
};

/** A request of a kind with no body of its own: what its kind says it is, and the page to answer it on. */
export function genericMailBody(
  action: ActionView,
  links: ActionLinks | undefined,
  asker: Asker,
  { html, text }: Written,
) {
  const title = titleOf(action);
  html.push(`<h2 style="margin:0 0 8px">${escape(title)}</h2>`, `<p>${escape(summaryOf(action))}</p>`);
  text.push(title, summaryOf(action));
  pushAsked(asker, { html, text });
  text.push('');
  if (links) (html.push(`<p>${button(links.page, 'Answer', true)}</p>`), text.push(`Answer: ${links.page}`));
}

/**
 * The mail about an action that waits: a subject that says what is asked, the question or the approval's
 * title and arguments, each choice as a button (a link to the answer page with it picked), and the
 * same in plain text.
 */
export function composeActionMail(input: {
  deliveryId: string;
  action: ActionView;
  /** The conversation a person started: for a child agent's request, its lead's (the action's `via` names the children). */
  conversation: { id: string; agent: string; ownerId?: string | null; channel?: string | null };
  links?: ActionLinks;
  from: string;
  /** A reminder (`hitl.remind`): said first, with the time it lapses, and in the subject. */
  reminder?: boolean;
}): ActionMail {
  const { action, links, conversation } = input;
  const html: string[] = [];
  const text: string[] = [];
  const domain = domainOf(input.from);
  if (input.reminder && action.expiresAt) {
    const when = new Date(action.expiresAt).toUTCString();
    html.push(
      `<p style="background:#fff4d6;padding:8px 12px;border-radius:6px"><b>Reminder:</b> this request still waits for an answer and lapses ${escape(when)} if nobody answers.</p>`,
    );
    text.push(`Reminder: this request still waits for an answer and lapses ${when} if nobody answers.`, '');
  }
  const asker = {
    ...askerOf(conversation),
    ...(action.via?.length ? { via: action.via.map((step) => step.agent) } : {}),
  };
  byKind(bodies, genericMailBody, action, links, asker, { html, text });
  if (action.expiresAt) {
    const when = new Date(action.expiresAt).toUTCString();
    html.push(`<p style="color:#777;font-size:13px">This request lapses ${escape(when)}.</p>`);
    text.push('', `This request lapses ${when}.`);
  }
  // A hash, not the id: for an ownerless conversation the id alone grants reading it, and mail headers travel far.
  const root = `<thread.${createHash('sha256').update(conversation.id).digest('hex').slice(0, 32)}@${domain}>`;
  return {
    subject: `[${conversation.agent}] ${input.reminder ? 'Reminder: ' : ''}${summaryOf(action)}`,
    html: `<!doctype html><html><body style="font-family:system-ui,-apple-system,Segoe UI,sans-serif;color:#1d1d1f;max-width:640px">${html.join('\n')}</body></html>`,
    text: text.join('\n'),
    messageId: `<${input.deliveryId}@${domain}>`,
    inReplyTo: root,
    references: root,
  };
}

/** Who asks, from the conversation: its owner, else where it lives. */
export function askerOf(conversation: { agent: string; ownerId?: string | null; channel?: string | null }): Asker {
  const place = channelPlatform(conversation.channel);
  return { agent: conversation.agent, requester: conversation.ownerId ?? null, ...(place ? { place } : {}) };
}

type Transport = ReturnType<typeof nodemailer.createTransport>;

/** nodemailer, loaded when an email is configured (not at `import 'heed'`). */
export function mailer(): typeof nodemailer {
  return requireOptional<typeof nodemailer>('nodemailer', 'Email notifications (notify.email)');
}

const transports = new WeakMap<EmailConfig, Transport>();

/** Sends one mail through the config's transport (made once per config). */
export async function sendMail(config: EmailConfig, to: string, mail: ActionMail, timeoutMs: number): Promise<void> {
  let transport = transports.get(config);
  if (!transport) {
    const options =
      typeof config.transport === 'string'
        ? config.transport
        : { connectionTimeout: timeoutMs, greetingTimeout: timeoutMs, socketTimeout: timeoutMs, ...config.transport };
    transport = mailer().createTransport(options as Parameters<typeof nodemailer.createTransport>[0]);
    transports.set(config, transport);
  }
  try {
    await transport.sendMail({
      from: config.from,
      to,
      subject: mail.subject,
      text: mail.text,
      html: mail.html,
      messageId: mail.messageId,
      inReplyTo: mail.inReplyTo,
      references: mail.references,
    });
  } catch (error) {
    const reason = error as { responseCode?: number; code?: string; message?: string };
    throw new Error(reason.responseCode ? `SMTP ${reason.responseCode}` : `could not send (${reason.code ?? 'error'})`);
  }
}
