import type { ErrorBody, ErrorDetails } from './protocol/error-body.js';

/**
 * Every error a user of Heed can meet carries a stable `code` (what clients match on), the HTTP
 * `status` it maps to, a sentence a person can read, and optional `details`.
 */
export const errorStatus = {
  invalid_request: 400,
  invalid_resolution: 400,
  invalid_approved_args: 400,
  invalid_client_tool_result: 400,
  invalid_config: 400,
  message_limit_reached: 400,
  callback_not_allowed: 400,
  push_endpoint_not_allowed: 400,
  extension_too_long: 400,
  invalid_extension: 400,
  authorization_pending: 400,
  slow_down: 400,
  expired_token: 400,
  access_denied: 400,
  unauthorized: 401,
  budget_reached: 402,
  action_forbidden: 403,
  forbidden: 403,
  csrf: 403,
  scope: 403,
  not_found: 404,
  action_not_pending: 409,
  already_voted: 409,
  conversation_busy: 409,
  queue_full: 409,
  channel_chat: 409,
  action_pending: 409,
  chat_id_taken: 409,
  task_not_cancelable: 409,
  action_expired: 410,
  payload_too_large: 413,
  metadata_too_large: 413,
  unsupported_media_type: 415,
  host_not_allowed: 421,
  rate_limited: 429,
  internal_error: 500,
  missing_dependency: 500,
  store_unavailable: 503,
} as const;

export type HeedErrorCode = keyof typeof errorStatus;

const marker = Symbol.for('heed.error');

export class HeedError extends Error {
  readonly [marker] = true;
  readonly code: HeedErrorCode;
  readonly status: number;
  readonly details?: ErrorDetails;

  constructor(code: HeedErrorCode, message: string, options: { details?: ErrorDetails; cause?: unknown } = {}) {
    super(message, { cause: options.cause });
    this.name = 'HeedError';
    this.code = code;
    this.status = errorStatus[code];
    this.details = options.details;
  }

  /** True for any HeedError, even one from another copy of the package. */
  static isInstance(error: unknown): error is HeedError {
    return typeof error === 'object' && error !== null && (error as Record<symbol, unknown>)[marker] === true;
  }

  /** The wire form: `{ error: { code, message, details? } }`. */
  toJSON(): ErrorBody {
    return {
      error: { code: this.code, message: this.message, ...(this.details ? { details: this.details } : {}) },
    };
  }
}

/**
 * The value, or an `internal_error` saying what was expected. For a value the code around it rules
 * out being missing, where the compiler cannot see that.
 */
export function must<T>(value: T | null | undefined, expected: string): T {
  if (value === undefined || value === null) throw new HeedError('internal_error', expected);
  return value;
}
