import { describe, expect, it } from 'vitest';
import { urlRecord } from '../../../../test/fixtures/url-action.js';
import { genericRequestBlocks } from './slack-blocks.js';

/* A kind with no Slack blocks of its own (test/fixtures/url-action.ts) shows through its presentation. */
describe("Slack's generic blocks", () => {
  it('Slack shows what is asked and says to answer in the app, with its deadline', () => {
    const text = JSON.stringify(genericRequestBlocks(urlRecord));
    expect(text).toContain('*Connect your calendar*\\nPlease open: Connect your calendar');
    expect(text).toContain('This request cannot be answered in Slack');
    expect(text).toContain('Lapses <!date^');
    expect(text).not.toContain('"type":"actions"');
  });
});
