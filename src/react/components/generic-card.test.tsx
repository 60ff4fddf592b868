import { renderToString } from 'react-dom/server';
import { describe, expect, it } from 'vitest';
import { urlView } from '../../../test/fixtures/url-action.js';
import { GenericCard } from './generic-card.js';

/* A kind with no card of its own (test/fixtures/url-action.ts) shows through its presentation. */
describe('the generic card', () => {
  it('the generic card shows its title and summary and a button per choice, the first choice as the primary one', () => {
    const html = renderToString(<GenericCard action={urlView} onSubmit={async () => ({ ok: true }) as never} />);
    expect(html).toContain('Connect your calendar');
    expect(html).toContain('Please open: Connect your calendar');
    const buttons = [...html.matchAll(/<button[^>]*class="([^"]*)"[^>]*>([^<]*)<\/button>/g)].map(
      ([, className, label]) => `${label}${className.includes('heed-primary') ? ' (primary)' : ''}`,
    );
    expect(buttons).toEqual(['Done (primary)', 'Decline', 'Not now']);
  });
});
