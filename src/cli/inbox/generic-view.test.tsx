import { render } from 'ink-testing-library';
import { describe, expect, it } from 'vitest';
import { urlView } from '../../../test/fixtures/url-action.js';
import type { ResolutionInput } from '../../protocol/resolution-input.js';
import type { ActionView } from '../../kinds/index.js';
import { GenericView } from './generic-view.js';

/* A kind with no inbox view of its own (test/fixtures/url-action.ts) shows through its presentation. */
describe("the terminal inbox's generic view", () => {
  it('the terminal inbox offers each choice under a number key, and the key sends that answer', async () => {
    const sent: ResolutionInput[] = [];
    const answered: ActionView[] = [];
    const app = render(
      <GenericView
        action={urlView}
        send={async (resolution) => {
          sent.push(resolution);
          return { ...urlView, status: 'resolved', resolution: { type: 'url', decision: 'accept' } } as ActionView;
        }}
        system={{ openUrl: async () => false }}
        rows={24}
        columns={100}
        now={Date.parse('2030-01-01T00:10:00Z')}
        onAnswered={(stored) => answered.push(stored)}
        onSettled={() => {}}
        onBack={() => {}}
      />,
    );
    try {
      const frame = app.lastFrame() ?? '';
      expect(frame).toContain('Please open: Connect your calendar');
      expect(frame).toContain('1 Done · 2 Decline · 3 Not now · Esc back');
      app.stdin.write('4');
      app.stdin.write('1');
      for (let waited = 0; answered.length === 0 && waited < 2000; waited += 10)
        await new Promise((resolve) => setTimeout(resolve, 10));
      expect(sent).toEqual([{ type: 'url', decision: 'accept' }]);
      expect(answered.map((stored) => stored.status)).toEqual(['resolved']);
    } finally {
      app.unmount();
    }
  });
});
