import { readFileSync } from 'node:fs';
import './channels/chat-sdk/platforms.js'; // registers the chat platforms' config shapes
import { describe, expect, it } from 'vitest';
import { configTable, withConfigTables } from './config-docs.js';
import { defaults } from './config-schema.js';

describe('the config tables of docs/http.md', () => {
  const markdown = readFileSync(new URL('../docs/http.md', import.meta.url), 'utf8');

  it('are the ones the options’ shapes make (run `npm run docs:config` when this fails)', () => {
    expect(markdown).toContain('<!-- config:limits -->');
    expect(withConfigTables(markdown)).toBe(markdown);
  });

  it('show each default as the engine reads it', () => {
    expect(configTable('limits')).toContain('| `limits.maxMessagesPerConversation` | 5,000 |');
    expect(configTable('agents[]')).toContain(`| \`agents[].maxSteps\` | ${defaults.maxSteps} |`);
    expect(defaults).toMatchObject({
      maxSteps: 20,
      timeoutMinutes: 1440,
      leaseMs: 30_000,
      busyPolicy: 'reject',
      streamsPerCaller: 16,
    });
  });
});
