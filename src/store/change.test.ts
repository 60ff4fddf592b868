import { describe, expect, it } from 'vitest';
import type { Change } from './store.js';
import { conversation } from './store-contract.js';

// The shapes every store used to refuse at run time no longer compile (tsc runs over the tests).
describe('Change', () => {
  it('is an update with the version it expects, or a create with nothing stored to revise', () => {
    // @ts-expect-error an update names the version it compares against
    const unversioned: Change = { conversationId: 'c1', set: { status: 'idle' } };
    // @ts-expect-error a new conversation has no version to compare against
    const versionedCreate: Change = { conversationId: 'c1', create: conversation('c1'), expectVersion: 1 };
    // @ts-expect-error a new conversation has no pending action to revise
    const revisingCreate: Change = { conversationId: 'c1', create: conversation('c1'), revise: [] };
    const update: Change = { conversationId: 'c1', expectVersion: 1, set: { status: 'idle' } };
    const create: Change = { conversationId: 'c1', create: conversation('c1') };
    expect([unversioned, versionedCreate, revisingCreate, update, create]).toHaveLength(5);
  });
});
