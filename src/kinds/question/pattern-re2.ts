/**
 * The server's pattern engine: RE2, whose matching time is linear in the answer (no backtracking),
 * so no pattern a model writes can hold the event loop. `re2` is a native module that only a server can
 * load, so it is loaded on first use, not on import: browsers load the question kind's module for how it
 * reads (src/kinds/question.ts), and never call this.
 */
import type RE2 from 're2';
import { MAX_PATTERN_ANSWER_LENGTH, MAX_PATTERN_SIZE, type PatternTest, patternSize, readPattern } from './pattern.js';

let engine: typeof RE2 | undefined;

/** The RE2 constructor, required on first use (a bundler for the browser sees no import of it). */
function re2(): typeof RE2 {
  engine ??= process.getBuiltinModule('node:module').createRequire(import.meta.url)('re2') as typeof RE2;
  return engine;
}

export type CompiledPattern = { ok: true; regex: RE2 } | { ok: false; problem: string };

/** Compiled patterns by source, most recently used last; a pause's answers reuse its pattern. */
const cache = new Map<string, RE2>();
const CACHE_SIZE = 200;

/**
 * Compiles a pattern to match a whole value, or says in a clause why it cannot be used ("it uses
 * lookaround ..."). Only patterns that pass here are stored on a question.
 */
export function compilePattern(pattern: string): CompiledPattern {
  const cached = cache.get(pattern);
  if (cached) {
    cache.delete(pattern);
    cache.set(pattern, cached);
    return { ok: true, regex: cached };
  }
  // Read first: the size check must come before RE2 compiles, since compiling a huge repeat is itself slow.
  const read = readPattern(pattern);
  if (!read.ok) return { ok: false, problem: read.problem };
  const size = patternSize(read.tree);
  if (size > MAX_PATTERN_SIZE) {
    return {
      ok: false,
      problem: `its repeats written out come to ${size} items; at most ${MAX_PATTERN_SIZE} are allowed`,
    };
  }
  let regex: RE2;
  try {
    const Engine = re2();
    regex = new Engine(`^(?:${pattern})$`, 'u');
  } catch (error) {
    const reason = error instanceof Error ? error.message.replace(/^Invalid regular expression: /, '') : String(error);
    return { ok: false, problem: `it is not a regular expression RE2 accepts (${reason.slice(0, 120)})` };
  }
  cache.set(pattern, regex);
  if (cache.size > CACHE_SIZE) cache.delete(cache.keys().next().value!);
  return { ok: true, regex };
}

/**
 * The server's check of an answer against a pattern. The answer's length is checked before this
 * (at most `MAX_PATTERN_ANSWER_LENGTH` characters); a longer one is refused here too, to be sure.
 */
export const re2PatternTest: PatternTest = (input, value) => {
  if (value.length > 2 * MAX_PATTERN_ANSWER_LENGTH) return false;
  const compiled = compilePattern(input.pattern);
  // A stored pattern RE2 refuses (stored before this check existed) accepts no answer.
  return compiled.ok ? compiled.regex.test(value) : false;
};
