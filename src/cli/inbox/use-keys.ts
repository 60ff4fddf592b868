import { useInput, type Key } from 'ink';
import { createContext, useContext, useEffect, useRef, useState } from 'react';

/**
 * False while the views below are hidden (the key help is shown over them): they keep what was typed
 * but take no keys.
 */
export const KeysEnabled = createContext(true);

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
 * keys, so such a string is split and fed one key per render: the next key goes to the handler only
 * after the view has drawn with what the previous key changed, so no key meets a stale state (on a
 * loaded machine a fixed delay was not enough, and typed characters went missing).
 */
export function useKeys(handler: (input: string, key: Key) => void, options: { isActive?: boolean } = {}): void {
  const enabled = useContext(KeysEnabled);
  const latest = useRef(handler);
  latest.current = handler;
  const queue = useRef<Array<[string, Key]>>([]);
  const [drawn, setDrawn] = useState(0);
  const handleNext = () => {
    const next = queue.current.shift();
    if (!next) return;
    latest.current(...next);
    // Draw again even when the key changed nothing, so the effect below hands over the next one.
    if (queue.current.length > 0) setDrawn((count) => count + 1);
  };
  useEffect(() => {
    if (queue.current.length > 0) handleNext();
  }, [drawn]);
  useInput(
    (input, key) => {
      const characters = Array.from(input);
      const plain = !Object.values(key).some((flag) => flag === true);
      const idle = queue.current.length === 0;
      if (characters.length <= 1 || !plain) {
        if (idle) latest.current(input, key);
        else queue.current.push([input, key]);
        return;
      }
      queue.current.push(...characters.map(keyOf));
      if (idle) handleNext();
    },
    { isActive: (options.isActive ?? true) && enabled },
  );
}
