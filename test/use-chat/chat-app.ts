/**
 * A small chat page built the way an AI SDK user would build one: `useChat` from `@ai-sdk/react` with
 * the default transport pointed at Heed's chat endpoint. Questions (the `ask` tool) are answered with
 * `addToolOutput`, approvals with `addToolApprovalResponse`; the chat resubmits by itself once every
 * open call of the last step has its answer. Written with `createElement` so it needs no JSX setup.
 */
import * as react6 from '@ai-sdk/react';
import type { UIMessage } from '@ai-sdk/react';
import * as react7 from '@ai-sdk/react-v4';
import * as ai6 from 'ai';
import * as ai7 from 'ai-v7';
import { createElement as h, useMemo, type FormEvent, type ReactNode } from 'react';

export type Chat = ReturnType<typeof react6.useChat<UIMessage>>;

/** What the page takes from the AI SDK: `@ai-sdk/react` with the `ai` package of the same major. */
export interface ChatSdk {
  name: string;
  useChat: typeof react6.useChat;
  DefaultChatTransport: typeof ai6.DefaultChatTransport;
  isToolUIPart: typeof ai6.isToolUIPart;
  lastAssistantMessageIsCompleteWithApprovalResponses: typeof ai6.lastAssistantMessageIsCompleteWithApprovalResponses;
  lastAssistantMessageIsCompleteWithToolCalls: typeof ai6.lastAssistantMessageIsCompleteWithToolCalls;
}

/** AI SDK 7 (`@ai-sdk/react` 4, `ai` 7), what `npm i ai @ai-sdk/react` installs today. */
export const sdk7: ChatSdk = {
  name: 'AI SDK 7 (@ai-sdk/react 4)',
  // AI SDK 7's types only add message parts this page never meets; the page is written once, against 6's.
  useChat: react7.useChat as unknown as ChatSdk['useChat'],
  DefaultChatTransport: ai7.DefaultChatTransport as unknown as ChatSdk['DefaultChatTransport'],
  isToolUIPart: ai7.isToolUIPart as unknown as ChatSdk['isToolUIPart'],
  lastAssistantMessageIsCompleteWithApprovalResponses:
    ai7.lastAssistantMessageIsCompleteWithApprovalResponses as unknown as ChatSdk['lastAssistantMessageIsCompleteWithApprovalResponses'],
  lastAssistantMessageIsCompleteWithToolCalls:
    ai7.lastAssistantMessageIsCompleteWithToolCalls as unknown as ChatSdk['lastAssistantMessageIsCompleteWithToolCalls'],
};

/** AI SDK 6 (`@ai-sdk/react` 3, `ai` 6). */
export const sdk6: ChatSdk = {
  name: 'AI SDK 6 (@ai-sdk/react 3)',
  useChat: react6.useChat,
  DefaultChatTransport: ai6.DefaultChatTransport,
  isToolUIPart: ai6.isToolUIPart,
  lastAssistantMessageIsCompleteWithApprovalResponses: ai6.lastAssistantMessageIsCompleteWithApprovalResponses,
  lastAssistantMessageIsCompleteWithToolCalls: ai6.lastAssistantMessageIsCompleteWithToolCalls,
};

export interface ChatAppProps {
  /** Which AI SDK major the page is built with. */
  sdk: ChatSdk;
  /** e.g. `http://127.0.0.1:PORT/api/ai-sdk/chat/helpdesk` */
  api: string;
  id: string;
  token?: string;
  /** What `GET {api}/{id}/messages` returned, after a reload. */
  messages?: UIMessage[];
  /** Lets the test reach the hook (to tamper with the browser's copy, as a hostile page could). */
  onChat?: (chat: Chat) => void;
  /** Records the bodies of the requests the transport makes. */
  requests?: string[];
  /**
   * Records each answer of `sendAutomaticallyWhen` (whether the chat sends again by itself), with how many
   * requests had been made when it was asked.
   */
  decisions?: Array<{ requests: number; send: boolean }>;
}

interface Question {
  id: string;
  header: string;
  prompt: string;
  options?: Array<{ value: string; label: string }>;
}

/** The sentence of a Heed error: the transport puts the response body in `error.message`. */
export function errorSentence(error: Error): string {
  try {
    return (JSON.parse(error.message) as { error: { message: string } }).error.message;
  } catch {
    return error.message;
  }
}

export function ChatApp(props: ChatAppProps): ReactNode {
  const {
    useChat,
    DefaultChatTransport,
    lastAssistantMessageIsCompleteWithApprovalResponses,
    lastAssistantMessageIsCompleteWithToolCalls,
  } = props.sdk;
  const transport = useMemo(
    () =>
      new DefaultChatTransport<UIMessage>({
        api: props.api,
        headers: props.token ? { authorization: `Bearer ${props.token}` } : undefined,
        fetch: (input, init) => {
          props.requests?.push(String(init?.body));
          return fetch(input, init);
        },
      }),
    [DefaultChatTransport, props.api, props.token, props.requests],
  );
  const chat = useChat<UIMessage>({
    id: props.id,
    messages: props.messages,
    transport,
    sendAutomaticallyWhen: ({ messages }) => {
      const send =
        lastAssistantMessageIsCompleteWithApprovalResponses({ messages }) ||
        lastAssistantMessageIsCompleteWithToolCalls({ messages });
      props.decisions?.push({ requests: props.requests?.length ?? 0, send });
      return send;
    },
  });
  props.onChat?.(chat);
  const { messages, status, error } = chat;

  const send = (event: FormEvent<HTMLFormElement>) => {
    event.preventDefault();
    const input = event.currentTarget.elements.namedItem('text') as HTMLInputElement;
    void chat.sendMessage({ text: input.value });
    input.value = '';
  };

  return h(
    'main',
    null,
    h('output', { 'data-testid': 'status' }, status),
    error ? h('p', { role: 'alert' }, errorSentence(error)) : null,
    messages.map((message, index) =>
      h(
        'section',
        { key: message.id, 'data-role': message.role },
        message.parts.map((part, at) =>
          // After an error nothing was consumed, so the last message's cards stay open to answer again.
          h(PartView, {
            key: at,
            part,
            chat,
            sdk: props.sdk,
            retry: status === 'error' && index === messages.length - 1,
          }),
        ),
      ),
    ),
    h(
      'form',
      { 'aria-label': 'composer', onSubmit: send },
      h('input', { name: 'text' }),
      h('button', { type: 'submit' }, 'Send'),
    ),
  );
}

function PartView({
  part,
  chat,
  sdk,
  retry,
}: {
  part: UIMessage['parts'][number];
  chat: Chat;
  sdk: ChatSdk;
  retry: boolean;
}): ReactNode {
  if (part.type === 'text') return h('p', null, part.text);
  if (!sdk.isToolUIPart(part)) return null;
  const call = part.toolCallId;
  if (part.type === 'tool-ask' && (part.state === 'input-available' || (retry && part.state === 'output-available'))) {
    const { questions } = part.input as { questions: Question[] };
    const answer = (event: FormEvent<HTMLFormElement>) => {
      event.preventDefault();
      const answers: Record<string, string> = {};
      for (const input of Array.from(event.currentTarget.querySelectorAll('input')))
        if (input.value.trim()) answers[input.name] = input.value;
      void chat.addToolOutput({ tool: 'ask', toolCallId: call, output: { answers } });
    };
    return h(
      'form',
      { 'aria-label': 'question', 'data-call': call, onSubmit: answer },
      questions.map((question) =>
        h(
          'label',
          { key: question.id },
          question.prompt,
          question.options ? ` (${question.options.map((option) => option.label).join(' / ')})` : '',
          h('input', { name: question.id }),
        ),
      ),
      h('button', { type: 'submit' }, 'Answer'),
      h(
        'button',
        {
          type: 'button',
          onClick: () =>
            void chat.addToolOutput({
              state: 'output-error',
              tool: 'ask',
              toolCallId: call,
              errorText: 'Closed by the user.',
            }),
        },
        'Dismiss',
      ),
    );
  }
  if (part.state === 'approval-requested') {
    const respond = (approved: boolean) => void chat.addToolApprovalResponse({ id: part.approval.id, approved });
    const heed = (part.toolMetadata?.heed ?? {}) as { summary?: string };
    return h(
      'div',
      { role: 'dialog', 'data-call': call },
      h('strong', null, part.title ?? 'Allow this call?'),
      h('p', null, heed.summary ?? ''),
      h('code', null, JSON.stringify(part.input)),
      h('button', { onClick: () => respond(true) }, 'Approve'),
      h('button', { onClick: () => respond(false) }, 'Deny'),
    );
  }
  if (part.state === 'output-available') return h('pre', { 'data-call': call }, JSON.stringify(part.output));
  if (part.state === 'output-denied') return h('p', { 'data-call': call }, 'Denied');
  if (part.state === 'output-error') return h('p', { 'data-call': call }, part.errorText);
  return h('p', { 'data-call': call }, part.state);
}
