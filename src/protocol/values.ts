import { z } from 'zod';

/*
 * The values every layer shares: JSON, tool results, times. The bottom of the protocol, below the kinds
 * of action (src/kinds/), whose wire shapes are built from these.
 */

export type JsonValue = null | boolean | number | string | JsonValue[] | { [key: string]: JsonValue };
export type JsonObject = { [key: string]: JsonValue };

export type ToolOutput =
  | { type: 'json'; value: JsonValue }
  | { type: 'text'; value: string }
  | { type: 'error-text'; value: string }
  /** Text and media side by side (an MCP tool's image, say); the model gets the media as media, not text. */
  | { type: 'content'; value: ToolContentPart[] };

/** One part of a `content` tool output. `data` is base64; in events it is left out and `bytes` says how big it was. */
export type ToolContentPart = { type: 'text'; text: string } | { type: 'media'; mediaType: string; data: string };

/** Any JSON, as documented: any value. */
export const json = z.unknown();
/** Any JSON (a tool's arguments, say): documented as any value, typed as what records hold. */
export const jsonValue = z.custom<JsonValue>();
export const isoTime = z.string().describe('ISO 8601 time, UTC');

/**
 * A value built only of JSON's own parts (a view, a card), as the JSON object it is: where TypeScript
 * cannot see it (optional fields, unions), the one place that says so.
 */
export function asJsonObject(value: object): JsonObject {
  return value as JsonObject;
}
