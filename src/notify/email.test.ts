import { describe, expect, it } from 'vitest';
import { urlView } from '../../test/fixtures/url-action.js';
import { genericMailBody } from './email.js';

/* A kind with no mail body of its own (test/fixtures/url-action.ts) shows through its presentation. */
describe('the generic mail body', () => {
  it("a mail's generic body says what is asked, by which agent, and links to the answer page", () => {
    const out = { html: [] as string[], text: [] as string[] };
    genericMailBody(urlView, { page: 'https://heed.example/answer/t0k3n' }, 'scheduler', out);
    expect(out.text.join('\n')).toBe(
      ['Connect your calendar', 'Please open: Connect your calendar', 'Asked by the agent scheduler.', '', 'Answer: https://heed.example/answer/t0k3n'].join('\n'),
    );
    expect(out.html.join('')).toContain('href="https://heed.example/answer/t0k3n"');
  });
});
