import type { JsonObject } from '../protocol/values.js';

/** An approval's comment as a person reads it: the text, or a structured one's JSON. */
export function commentText(value: string | JsonObject): string {
  return typeof value === 'string' ? value : JSON.stringify(value);
}
