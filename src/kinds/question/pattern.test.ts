import { describe, expect, it } from 'vitest';
import { isBacktrackSafe, readPattern } from './pattern.js';
import { compilePattern } from './pattern-re2.js';

const problemOf = (pattern: string) => {
  const compiled = compilePattern(pattern);
  return compiled.ok ? null : compiled.problem;
};

describe('question patterns', () => {
  it('accepts what RE2 runs in linear time, including patterns that would backtrack forever', () => {
    for (const pattern of [
      '[A-Z]{3}-\\d{4}',
      '^(a+)+$',
      '(a|aa)+',
      '(?<year>\\d{4})-\\d{2}',
      '\\p{L}+',
      '[^@\\s]+@[^@\\s]+',
      'a{2,}b?',
      'x{',
      '(?i)abc',
    ]) {
      expect(problemOf(pattern), pattern).toBeNull();
    }
  });

  it('refuses what no linear-time engine can do, and repeats that write out too large, each with a reason', () => {
    expect(problemOf('(?=a)a')).toMatch(/lookaround/);
    expect(problemOf('(?<!a)b')).toMatch(/lookaround/);
    expect(problemOf('(a)\\1')).toMatch(/backreference/);
    expect(problemOf('(?<x>a)\\k<x>')).toMatch(/backreference/);
    expect(problemOf('[a-z]{0,1000}'.repeat(30))).toBe(
      'its repeats written out come to 30000 items; at most 1000 are allowed',
    );
    expect(problemOf('(?:\\w+\\s?){1,1000}')).toMatch(/at most 1000 are allowed/);
    expect(problemOf('[]a]')).toMatch(/may not start with "]"/);
    expect(problemOf('(ab')).toMatch(/not closed/);
    expect(problemOf('ab)')).toMatch(/closes no group/);
    expect(problemOf('a**')).toMatch(/repeated directly/);
    expect(problemOf('a{3,1}')).toMatch(/wrong way round/);
  });

  it('marks as safe for a backtracking engine only patterns with no repeat around a choice and few ways to split', () => {
    for (const pattern of [
      '[A-Z]{3}-\\d{4}',
      '\\+?\\d{7,15}',
      '[a-z]+',
      '(?:-\\d{4})?',
      '(?:[A-Z]{2}\\d{2}){3}',
      'yes|no',
    ]) {
      expect(isBacktrackSafe(pattern), pattern).toBe(true);
    }
    for (const pattern of ['(a+)+', '(a|b)*', '(a?){30}a{30}', '\\d+\\d+\\d+', '\\d+\\d+', '(?=a)a', 'a{']) {
      expect(isBacktrackSafe(pattern), pattern).toBe(false);
    }
    expect(readPattern('a|b').ok).toBe(true);
  });
});
