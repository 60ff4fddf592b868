/**
 * What Heed allows in a question's `input.pattern`, read without running it: pure code, shared by the
 * server (which matches patterns with RE2, in linear time, see pattern-re2.ts) and the
 * browser (which runs a pattern with its own backtracking RegExp only when this file finds it safe).
 */
import type { QuestionInput } from './wire.js';

/** Longest answer, in characters, that is checked against a pattern (longer ones are refused). */
export const MAX_PATTERN_ANSWER_LENGTH = 1000;
/**
 * Largest pattern once counted repeats are written out (`a{500}` counts 500). RE2's time is linear
 * in the answer times this size, so the cap keeps one check to a few milliseconds.
 */
export const MAX_PATTERN_SIZE = 1000;
/**
 * Most ways a backtracking engine may try to split an answer between a pattern's variable repeats
 * and alternatives (an open repeat counts as many ways as the longest answer). Measured in V8 on
 * 1,000 characters: a million ways take 1 ms (`\d+\d+`) to 14 ms (`[ab]{1,999}[ab]{1,999}`), three
 * open repeats 400 ms; this budget lets one open repeat combine with about a hundred other ways.
 */
const MAX_BACKTRACK_WAYS = 100_000;

type PatternNode =
  | { type: 'atom' }
  | { type: 'alternation'; branches: PatternNode[][] }
  | { type: 'repeat'; min: number; max: number; node: PatternNode };

export type PatternRead = { ok: true; tree: PatternNode } | { ok: false; problem: string };

class PatternProblem extends Error {}

/**
 * Reads a pattern's structure: groups, alternatives and repeats, each character class or escape as
 * one atom. Refuses what a linear-time engine cannot do (backreferences, lookaround) with a reason.
 */
export function readPattern(pattern: string): PatternRead {
  let at = 0;
  const fail = (problem: string): never => {
    throw new PatternProblem(problem);
  };

  const escape = (): void => {
    // at is just past the backslash.
    const next = pattern[at];
    if (next === undefined) fail('it ends with a lone backslash');
    if (/[1-9]/.test(next) || next === 'k')
      fail('it uses a backreference (\\1, \\k<name>), which cannot be checked in linear time');
    if (next === 'Q' || next === 'C') fail(`\\${next} is not supported`);
    at += 1;
    if ((next === 'u' || next === 'p' || next === 'P' || next === 'x') && pattern[at] === '{') {
      const close = pattern.indexOf('}', at);
      at = close < 0 ? pattern.length : close + 1;
    }
  };

  const characterClass = (): void => {
    // at is just past the '['.
    if (pattern[at] === '^') at += 1;
    // Engines disagree on a class that starts with ']' ([] or [^] in JavaScript, a literal ']' in RE2).
    if (pattern[at] === ']') fail('a character class may not start with "]" (write [\\s\\S] for any character)');
    while (at < pattern.length && pattern[at] !== ']') {
      if (pattern[at] === '\\') {
        at += 1;
        escape();
      } else at += 1;
    }
    if (at >= pattern.length) fail('a character class "[" is not closed');
    at += 1;
  };

  const group = (): PatternNode => {
    // at is just past the '('.
    if (pattern[at] === '?') {
      const rest = pattern.slice(at + 1, at + 3);
      if (rest.startsWith('=') || rest.startsWith('!') || rest === '<=' || rest === '<!') {
        fail('it uses lookaround ((?=, (?!, (?<=, (?<!), which cannot be checked in linear time');
      }
      if (rest.startsWith(':')) at += 2;
      else if (rest.startsWith('<') || rest.startsWith('P<')) {
        const close = pattern.indexOf('>', at);
        if (close < 0) fail('a group name is not closed with ">"');
        at = close + 1;
      } else {
        // Flags such as (?i) or (?i:...).
        at += 1;
        while (at < pattern.length && /[a-zA-Z-]/.test(pattern[at])) at += 1;
        if (pattern[at] === ')') {
          at += 1;
          return { type: 'atom' };
        }
        if (pattern[at] !== ':') fail('a group starting "(?" is not one this engine knows');
        at += 1;
      }
    }
    const node = alternation();
    if (pattern[at] !== ')') fail('a group "(" is not closed');
    at += 1;
    return node;
  };

  const quantifier = (node: PatternNode): PatternNode => {
    const char = pattern[at];
    let min: number;
    let max: number;
    if (char === '*' || char === '+' || char === '?') {
      at += 1;
      [min, max] = char === '*' ? [0, Infinity] : char === '+' ? [1, Infinity] : [0, 1];
    } else if (char === '{') {
      const match = /^\{(\d+)(,(\d*))?\}/.exec(pattern.slice(at));
      if (!match) return node; // A '{' that starts no count is a literal '{'.
      at += match[0].length;
      min = Number(match[1]);
      max = match[2] === undefined ? min : match[3] === '' ? Infinity : Number(match[3]);
      if (max < min) fail(`the repeat ${match[0]} has its numbers the wrong way round`);
    } else {
      return node;
    }
    if (pattern[at] === '?') at += 1; // lazy: the same ways, tried in another order
    const next = pattern[at];
    if (next === '*' || next === '+' || next === '?' || (next === '{' && /^\{\d+(,\d*)?\}/.test(pattern.slice(at)))) {
      fail('a repeat is repeated directly (like a**); put the inner one in a group');
    }
    return { type: 'repeat', min, max, node };
  };

  const sequence = (): PatternNode[] => {
    const items: PatternNode[] = [];
    while (at < pattern.length && pattern[at] !== '|' && pattern[at] !== ')') {
      const char = pattern[at];
      at += 1;
      let node: PatternNode;
      if (char === '(') node = group();
      else if (char === '[') {
        characterClass();
        node = { type: 'atom' };
      } else if (char === '\\') {
        escape();
        node = { type: 'atom' };
      } else if (char === '*' || char === '+' || char === '?') {
        return fail(`"${char}" has nothing before it to repeat`);
      } else node = { type: 'atom' };
      items.push(quantifier(node));
    }
    return items;
  };

  const alternation = (): PatternNode => {
    const branches = [sequence()];
    while (pattern[at] === '|') {
      at += 1;
      branches.push(sequence());
    }
    return { type: 'alternation', branches };
  };

  try {
    const tree = alternation();
    if (at < pattern.length) fail('it has a ")" that closes no group');
    return { ok: true, tree };
  } catch (error) {
    if (error instanceof PatternProblem) return { ok: false, problem: error.message };
    throw error;
  }
}

/** The pattern's size once counted repeats are written out (what a linear-time engine compiles). */
export function patternSize(node: PatternNode): number {
  switch (node.type) {
    case 'atom':
      return 1;
    case 'alternation':
      return (
        node.branches.reduce((sum, branch) => sum + branch.reduce((inner, item) => inner + patternSize(item), 0), 0) ||
        1
      );
    case 'repeat':
      return patternSize(node.node) * Math.max(1, Number.isFinite(node.max) ? node.max : node.min + 1);
  }
}

function hasChoice(node: PatternNode): boolean {
  if (node.type === 'atom') return false;
  if (node.type === 'repeat') return node.min !== node.max || hasChoice(node.node);
  return node.branches.length > 1 || node.branches.some((branch) => branch.some(hasChoice));
}

/**
 * How many ways a backtracking engine may try, or Infinity when it can be exponential: a repeat of
 * more than one copy around anything with a choice in it (`(a+)+`, `(a|b)*`, `(a?){9}`).
 */
function backtrackWays(node: PatternNode): number {
  switch (node.type) {
    case 'atom':
      return 1;
    case 'alternation': {
      let ways = 0;
      for (const branch of node.branches) ways += branch.reduce((product, item) => product * backtrackWays(item), 1);
      return ways;
    }
    case 'repeat': {
      if (node.max > 1 && hasChoice(node.node)) return Infinity;
      const inner = backtrackWays(node.node);
      const span = Number.isFinite(node.max) ? node.max - node.min : MAX_PATTERN_ANSWER_LENGTH;
      return inner * (span + 1);
    }
  }
}

/** The pattern as a browser compiles it: whole value, Unicode mode (as the server's RE2 reads it). */
export function wholeValueRegExp(pattern: string): RegExp {
  return new RegExp(`^(?:${pattern})$`, 'u');
}

/**
 * True when a backtracking engine (a browser's RegExp) may run the pattern on an answer of up to
 * `MAX_PATTERN_ANSWER_LENGTH` characters without a slow case: a conservative check, so some harmless
 * patterns (like `(a|b)*`) are left to the server alone.
 */
export function isBacktrackSafe(pattern: string): boolean {
  const read = readPattern(pattern);
  if (!read.ok || backtrackWays(read.tree) > MAX_BACKTRACK_WAYS) return false;
  try {
    wholeValueRegExp(pattern);
    return true;
  } catch {
    // The engine refuses the pattern: that is the answer.
    return false;
  }
}

/**
 * Matches an answer against a question's pattern: true or false, or undefined when this side does
 * not check it (then the server's check is the one that counts).
 */
export type PatternTest = (input: QuestionInput & { pattern: string }, value: string) => boolean | undefined;

/**
 * The browser's check: runs only a pattern the server marked safe for a backtracking engine and that
 * this side also finds safe, on an answer no longer than the server checks; anything else is left to
 * the server.
 */
export const backtrackingPatternTest: PatternTest = (input, value) => {
  if (input.patternBacktrackSafe !== true || value.length > 2 * MAX_PATTERN_ANSWER_LENGTH) return undefined;
  if (!isBacktrackSafe(input.pattern)) return undefined;
  return wholeValueRegExp(input.pattern).test(value);
};
