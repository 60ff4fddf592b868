/**
 * A CopilotKit-style page over AG-UI, bundled for the browser by test/browser/ag-ui-page.test.ts: a chat
 * that talks to Heed with `@ag-ui/client`'s HttpAgent, shows the streamed text and tool calls, and renders
 * each interrupt the run ends with as a card (an approval's Allow / Deny), whose answer resumes the run.
 * Opened as `/ag-ui-page?agent=<name>&token=<bearer>`.
 */
import { HttpAgent } from '@ag-ui/client';
import type { Interrupt, ResumeEntry } from '@ag-ui/core';

const params = new URLSearchParams(location.search);
const agent = new HttpAgent({
  url: `/api/ag-ui/${params.get('agent') ?? 'refunds'}`,
  headers: params.get('token') ? { authorization: `Bearer ${params.get('token')}` } : {},
});

document.body.innerHTML = `
  <main>
    <h1>Assistant</h1>
    <ol aria-label="Messages"></ol>
    <section aria-label="Waiting for you"></section>
    <p role="status"></p>
    <form>
      <label>Message <input name="text" autocomplete="off"></label>
      <button type="submit">Send</button>
    </form>
  </main>`;
const list = document.querySelector('ol')!;
const waiting = document.querySelector('section')!;
const status = document.querySelector('[role=status]')!;
const form = document.querySelector('form')!;

/** The thread as the agent holds it: text, tool calls and their results. */
function render(): void {
  list.replaceChildren(
    ...agent.messages.flatMap((message) => {
      const items: HTMLLIElement[] = [];
      const item = (text: string) => {
        const li = document.createElement('li');
        li.textContent = text;
        items.push(li);
      };
      if (message.role === 'user' || message.role === 'assistant') {
        if (typeof message.content === 'string' && message.content) item(`${message.role}: ${message.content}`);
      }
      if (message.role === 'assistant')
        for (const call of message.toolCalls ?? []) item(`tool ${call.function.name} ${call.function.arguments}`);
      if (message.role === 'tool') item(`result: ${message.content}`);
      return items;
    }),
  );
}

/** One card per interrupt; an approval (a tool call whose answer takes `approved`) gets Allow and Deny. */
function showInterrupts(interrupts: Interrupt[]): void {
  waiting.replaceChildren(
    ...interrupts.map((interrupt) => {
      const card = document.createElement('article');
      card.setAttribute('aria-label', interrupt.message ?? interrupt.reason);
      const title = document.createElement('h2');
      title.textContent = interrupt.message ?? interrupt.reason;
      card.append(title);
      const approval =
        interrupt.reason === 'tool_call' && JSON.stringify(interrupt.responseSchema ?? {}).includes('"approved"');
      if (approval) {
        for (const [label, approved] of [
          ['Allow', true],
          ['Deny', false],
        ] as const) {
          const button = document.createElement('button');
          button.textContent = label;
          button.onclick = () =>
            void resume([{ interruptId: interrupt.id, status: 'resolved', payload: { approved } }]);
          card.append(button);
        }
      }
      return card;
    }),
  );
}

async function runOnce(parameters: { resume?: ResumeEntry[] } = {}): Promise<void> {
  status.textContent = 'Working…';
  let interrupts: Interrupt[] = [];
  let error: string | undefined;
  try {
    await agent.runAgent(parameters, {
      onMessagesChanged: render,
      onRunFinishedEvent: (finished) => {
        if (finished.outcome === 'interrupt') interrupts = finished.interrupts;
      },
      onRunErrorEvent: ({ event }) => {
        error = event.message;
      },
    });
  } catch (thrown) {
    error ??= thrown instanceof Error ? thrown.message : String(thrown);
  }
  render();
  showInterrupts(interrupts);
  status.textContent = error ?? (interrupts.length > 0 ? 'Waiting for your answer' : 'Done');
}

function resume(entries: ResumeEntry[]): Promise<void> {
  waiting.replaceChildren();
  return runOnce({ resume: entries });
}

form.onsubmit = (event) => {
  event.preventDefault();
  const input = form.elements.namedItem('text') as HTMLInputElement;
  agent.addMessage({ id: crypto.randomUUID(), role: 'user', content: input.value });
  input.value = '';
  void runOnce();
};
