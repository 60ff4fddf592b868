import { describe, expect, it } from 'vitest';
import { urlView } from '../../test/fixtures/url-action.js';
import { byKind, type ByKind } from './index.js';

describe('byKind', () => {
  it('byKind calls the table for a kind it has, and the fallback for one it leaves out', () => {
    const table: ByKind<string, [suffix: string]> = {
      approval: (action, suffix) => `approval ${action.title}${suffix}`,
    };
    expect(byKind(table, (action, suffix) => `fallback ${action.kind}${suffix}`, urlView, '!')).toBe('fallback url!');
  });
});
