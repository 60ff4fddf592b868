import { clip } from './clip.js';

/** A text on one line, cut to `max` characters. */
export function oneLine(text: string, max = 90): string {
  return clip(text.replace(/\s+/g, ' ').trim(), max, '…');
}
