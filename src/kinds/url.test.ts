import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { createHeed } from '../heed.js';
import { scriptedModel } from '../testing/scripted-model.js';
import { tool } from '../tool.js';
import { sizes } from '../../test/sizes.js';
import { isAllowedUrl } from './url.js';

/** What a browser would open for the text: its scheme after the URL parser's own clean-up. */
function scheme(text: string): string | undefined {
  try {
    return new URL(text).protocol;
  } catch {
    return undefined;
  }
}

const refused = [
  'javascript:alert(1)',
  'JavaScript:alert(1)',
  ' javascript:alert(1)',
  '\tjava\nscript:alert(1)',
  '\u0000javascript:alert(1)',
  'javascript://example.com/%0Aalert(1)',
  'data:text/html,<script>alert(1)</script>',
  'vbscript:msgbox(1)',
  'file:///etc/passwd',
  'ftp://example.com/x',
  'ws://example.com',
  'wss://example.com',
  'blob:https://example.com/uuid',
  'about:blank',
  'mailto:a@example.com',
  'tel:+123',
  'intent://x#Intent;end',
  'chrome://settings',
  'http',
  'https:',
  '//example.com/path',
  '/relative/path',
  'example.com',
  '',
];

describe('URL actions: only http and https', () => {
  it('refuses every other scheme, however it is dressed up', () => {
    for (const text of refused) expect([text, isAllowedUrl(text)]).toEqual([text, false]);
    for (const text of [
      'https://example.com/connect?x=1#y',
      'http://127.0.0.1:3000/',
      'HTTPS://EXAMPLE.COM',
      ' https://example.com ',
    ]) {
      expect([text, isAllowedUrl(text)]).toEqual([text, true]);
    }
  });

  it('for any text, allowed exactly when a URL parser reads it as http or https', () => {
    const schemes = fc.constantFrom(
      'http',
      'https',
      'javascript',
      'data',
      'file',
      'ftp',
      'ws',
      'vbscript',
      'blob',
      'about',
      'HtTpS',
      'jav\tascript',
      '',
    );
    const text = fc.oneof(
      fc.string({ unit: 'binary' }),
      fc.webUrl({ withQueryParameters: true, withFragments: true }),
      fc
        .tuple(fc.string({ maxLength: 3 }), schemes, fc.constantFrom(':', '://', ':/', ':\\\\'), fc.string())
        .map((parts) => parts.join('')),
    );
    fc.assert(
      fc.property(text, (candidate) => {
        const protocol = scheme(candidate);
        expect(isAllowedUrl(candidate)).toBe(protocol === 'http:' || protocol === 'https:');
      }),
      { numRuns: sizes.property.runs },
    );
  });

  it('a tool that offers any other scheme fails with an error the model reads, and no action is parked', async () => {
    const offered: string[] = [];
    const model = scriptedModel(({ messages }) => {
      const last = messages.at(-1)!;
      if (last.role === 'tool') return { text: 'Done.' };
      const url = last.role === 'user' && last.content[0].type === 'text' ? last.content[0].text : '';
      return { toolCalls: [{ toolName: 'connect', input: { url } }] };
    });
    const heed = createHeed({
      sweepIntervalMs: 0,
      agents: [
        {
          name: 'a',
          model,
          tools: {
            connect: tool({
              inputSchema: z.object({ url: z.string() }),
              execute: async ({ url }, ctx) => {
                offered.push(url);
                return ctx.openUrl({ url, title: 'Open this' });
              },
            }),
          },
        },
      ],
    });
    const urls = [...refused.filter((text) => text.trim() !== ''), 'https://example.com/ok'];
    for (const url of urls) {
      const { id } = await heed.createConversation({ agent: 'a' });
      const result = await heed.conversation(id).send(url);
      const actions = await heed.conversation(id).actions();
      if (isAllowedUrl(url)) {
        expect(result.status).toBe('requires_action');
        expect(
          actions.map((action) => ({ kind: action.kind, url: action.kind === 'url' ? action.url : undefined })),
        ).toEqual([{ kind: 'url', url }]);
      } else {
        expect([url, result.status, actions]).toEqual([url, 'completed', []]);
        const toolResult = result.messages.find((message) => message.role === 'tool')!.parts[0];
        expect(toolResult).toMatchObject({
          output: { type: 'error-text', value: expect.stringContaining('Only http and https addresses') },
        });
      }
    }
    expect(offered).toEqual(urls);
    await heed.close();
  });
});
