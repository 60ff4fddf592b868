import { afterEach, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { startServer, type TestServer } from '../http-fixtures.js';
import { eventually, smtpReceiver } from './receivers.js';
import { scriptedModel, type ScriptedPrompt } from '../../src/testing/scripted-model.js';
import { tool } from '../../src/tool.js';
import type { AgentConfig } from '../../src/config.js';

/**
 * Agents that call agents by mail (real SMTP, real HTTP): the child's approval is mailed, its link answers the
 * request the parent lists, once, and the parent goes on.
 */

let cleanup: Array<() => Promise<void>> = [];
afterEach(async () => {
  for (const step of cleanup.reverse()) await step();
  cleanup = [];
});

function toolText(messages: ScriptedPrompt): string | undefined {
  const last = messages.at(-1);
  if (last?.role !== 'tool') return undefined;
  return String((last.content[0] as { output: { value: unknown } }).output.value);
}

function agents(restarts: string[]): AgentConfig[] {
  return [
    {
      name: 'lead',
      agents: ['ops'],
      model: scriptedModel(({ messages }) => {
        const result = toolText(messages);
        return result
          ? { text: `Done: ${result}` }
          : { toolCalls: [{ toolName: 'agent_ops', input: { task: 'Restart web.' } }] };
      }),
    },
    {
      name: 'ops',
      description: 'Restarts services.',
      tools: {
        restart: tool({
          description: 'Restart a service.',
          inputSchema: z.object({ service: z.string() }),
          needsApproval: true,
          execute: async ({ service }) => {
            restarts.push(service);
            return `restarted ${service}`;
          },
        }),
      },
      model: scriptedModel(({ messages }) =>
        toolText(messages)
          ? { text: 'Restarted web.' }
          : { toolCalls: [{ toolName: 'restart', input: { service: 'web' } }] },
      ),
    },
  ];
}

const hrefs = (html: string) => [...html.matchAll(/href="([^"]+)"/g)].map((match) => match[1].replaceAll('&amp;', '&'));

describe('a child agent’s request by mail', () => {
  it("the mailed link of the child's approval answers the request the parent lists, once, and the parent goes on", async () => {
    const smtp = await smtpReceiver();
    cleanup.push(smtp.close);
    const restarts: string[] = [];
    const server: TestServer = await startServer({
      agents: agents(restarts),
      notify: {
        email: {
          transport: smtp.transport,
          from: 'Heed <heed@example.com>',
          to: ({ conversation }) => (conversation.ownerId === 'ada' ? ['ada@example.com'] : null),
        },
        retry: { firstDelayMs: 100, maxDelayMs: 200 },
        pollIntervalMs: 50,
      },
    });
    cleanup.push(server.close);
    const { id } = (await server.api('POST', '/api/conversations', { token: 'ada', body: { agent: 'lead' } })).body;
    const sent = await server.api('POST', `/api/conversations/${id}/messages`, {
      token: 'ada',
      body: { content: 'go' },
    });
    const [pending] = sent.body.pendingActions;
    expect(pending.via).toEqual([{ agent: 'ops', conversationId: expect.any(String) }]);

    await smtp.until(() => smtp.mails.length === 1);
    const [mail] = smtp.mails;
    expect(mail.text).toContain('restart');
    const allow = hrefs(String(mail.html)).find((href) => href.endsWith('?choice=allow'))!;
    const token = new URL(allow).pathname.split('/').at(-1)!;
    const read = await fetch(`${server.url}/api/links/${token}`);
    expect(read.status).toBe(200);
    expect(await read.json()).toMatchObject({ recipient: 'ada@example.com', action: { id: pending.id } });

    const answered = await server.api('POST', `/api/links/${token}`, {
      body: { resolution: { type: 'approval', decision: 'allow' } },
    });
    expect(answered.status).toBe(200);
    await eventually(async () => {
      const parent = (await server.api('GET', `/api/conversations/${id}`, { token: 'ada' })).body;
      return parent.runtime.status === 'idle' ? parent : undefined;
    });
    const parent = (await server.api('GET', `/api/conversations/${id}`, { token: 'ada' })).body;
    expect(parent.messages.at(-1).parts[0].text).toBe('Done: Restarted web.');
    expect(parent.runtime.pendingActionIds).toEqual([]);
    expect(restarts).toEqual(['web']);

    const again = await server.api('POST', `/api/links/${token}`, {
      body: { resolution: { type: 'approval', decision: 'allow' } },
    });
    expect(again.status).toBe(409);
    expect(restarts).toEqual(['web']);
  });
});
