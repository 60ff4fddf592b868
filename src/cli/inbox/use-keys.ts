import { useInput, type Key } from 'ink';
import { useRef } from 'react';

const NO_KEY: Key = {
  upArrow: false,
  downArrow: false,
  leftArrow: false,
  rightArrow: false,
  pageDown: false,
  pageUp: false,
  home: false,
  end: false,
  return: false,
  escape: false,
  ctrl: false,
  shift: false,
  tab: false,
  backspace: false,
  delete: false,
  meta: false,
  super: false,
  hyper: false,
  capsLock: false,
  numLock: false,
};

/** One typed character as the key Ink would report had it come alone. */
export function keyOf(character: string): [string, Key] {
  if (character === '\r' || character === '\n') return ['', { ...NO_KEY, return: true }];
  if (character === '\u007f' || character === '\b') return ['', { ...NO_KEY, backspace: true }];
  if (character === '\t') return ['', { ...NO_KEY, tab: true }];
  return [character, NO_KEY];
}

/**
 * Ink's useInput, one key at a time. Keys typed quickly (or over a slow SSH link) can arrive in one
 * read, which Ink reports as one string: `a` then Enter would be "a\r". Every view here acts on single
 * keys, so such a string is split and fed one key per tick, each after the view has drawn the previous one.
 */
export function useKeys(handler: (input: string, key: Key) => void, options: { isActive?: boolean } = {}): void {
  const latest = useRef(handler);
  latest.current = handler;
  const queue = useRef<Array<[string, Key]>>([]);
  const drain = () => {
    const next = queue.current.shift();
    if (!next) return;
    latest.current(...next);
    if (queue.current.length > 0) setTimeout(drain, 2);
  };
  useInput((input, key) => {
    const characters = Array.from(input);
    const plain = !Object.values(key).some((flag) => flag === true);
    if (characters.length <= 1 || !plain) {
      if (queue.current.length > 0) queue.current.push([input, key]);
      else latest.current(input, key);
      return;
    }
    const idle = queue.current.length === 0;
    queue.current.push(...characters.map(keyOf));
    if (idle) drain();
  }, options);
}
