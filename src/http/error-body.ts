import type { HeedError } from '../errors.js';
import type { ErrorBody } from '../protocol/error-body.js';

/** Largest error body, in bytes of JSON: what docs/guarantees.md promises whatever was sent or stored. */
export const MAX_ERROR_BODY_BYTES = 16 * 1024;

/** Longest text and list kept in the details of an error that would be too large otherwise. */
const CLIPPED_TEXT = 500;
const CLIPPED_LIST = 20;

type Body = ErrorBody;

function byteLength(body: Body): number {
  return Buffer.byteLength(JSON.stringify(body));
}

function clipText(text: string, max: number): string {
  return text.length > max ? `${text.slice(0, max)}… (${text.length - max} more characters not shown)` : text;
}

/** A copy with long texts and lists cut short, each cut saying how much it left out. */
function clip(value: unknown, depth = 0): unknown {
  if (typeof value === 'string') return clipText(value, CLIPPED_TEXT);
  if (typeof value !== 'object' || value === null) return value;
  if (depth > 8) return '(nested too deep to show)';
  if (Array.isArray(value)) {
    const kept = value.slice(0, CLIPPED_LIST).map((item) => clip(item, depth + 1));
    if (value.length > CLIPPED_LIST) kept.push(`(${value.length - CLIPPED_LIST} more not shown)`);
    return kept;
  }
  const copy: Record<string, unknown> = Object.create(null);
  const entries = Object.entries(value);
  for (const [key, item] of entries.slice(0, CLIPPED_LIST)) copy[key] = clip(item, depth + 1);
  if (entries.length > CLIPPED_LIST) copy['(more)'] = `${entries.length - CLIPPED_LIST} more fields not shown`;
  return copy;
}

/**
 * The wire form of an error, kept under `MAX_ERROR_BODY_BYTES`: details that would pass it (a 409
 * repeating a long stored answer, say) have their long texts and lists shortened, and if that is not
 * enough they are left out; either way `details.truncated` says so in a sentence.
 */
export function boundedErrorBody(error: HeedError): Body {
  const body: Body = error.toJSON();
  if (byteLength(body) <= MAX_ERROR_BODY_BYTES) return body;
  const message = clipText(error.message, 2000);
  if (error.details) {
    const clipped: Body = {
      error: {
        code: error.code,
        message,
        details: {
          ...(clip(error.details) as Record<string, unknown>),
          truncated: 'Long texts and lists in these details were shortened to keep this answer under 16 KiB.',
        },
      },
    };
    if (byteLength(clipped) <= MAX_ERROR_BODY_BYTES) return clipped;
  }
  return {
    error: {
      code: error.code,
      message,
      ...(error.details
        ? {
            details: {
              truncated:
                'The details of this error were left out: they would have made this answer larger than 16 KiB.',
            },
          }
        : {}),
    },
  };
}
