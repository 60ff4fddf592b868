import { HeedError } from '../../errors.js';
import { toHeedError } from '../errors.js';

/*
 * JSON-RPC 2.0 envelopes for A2A (docs/a2a.md). A refusal is a JSON-RPC error with A2A's code where A2A has
 * one, a sentence a person can read, and Heed's stable code in `data` (a google.rpc.ErrorInfo, as A2A 1.0
 * carries error details): `data[0].metadata.code` is the code of docs/concepts.md.
 */

export type RpcId = string | number | null;

export const A2A_CODES = {
  parseError: -32700,
  invalidRequest: -32600,
  methodNotFound: -32601,
  invalidParams: -32602,
  internalError: -32603,
  taskNotFound: -32001,
  taskNotCancelable: -32002,
  pushNotSupported: -32003,
  unsupportedOperation: -32004,
  /** Heed's own refusals with no A2A code (409, 410, 403, 429 …): the `data` tells them apart. */
  refused: -32000,
} as const;

/** A refusal that carries its JSON-RPC code (A2A's) besides Heed's own. */
export class RpcError extends HeedError {
  constructor(
    readonly rpcCode: number,
    error: HeedError,
  ) {
    super(error.code, error.message, { details: error.details, cause: error.cause });
  }
}

export const notCancelable = (message: string) =>
  new RpcError(A2A_CODES.taskNotCancelable, new HeedError('task_not_cancelable', message));

/** The JSON-RPC code for a Heed refusal. */
function rpcCodeOf(error: HeedError): number {
  if (error instanceof RpcError) return error.rpcCode;
  if (error.code === 'not_found') return A2A_CODES.taskNotFound;
  if (error.code === 'internal_error') return A2A_CODES.internalError;
  if (error.status === 400) return A2A_CODES.invalidParams;
  return A2A_CODES.refused;
}

/** A thrown value as a JSON-RPC error object. */
export function rpcError(thrown: unknown): { code: number; message: string; data: unknown[] } {
  const error = thrown instanceof RpcError ? thrown : toHeedError(thrown);
  const metadata: Record<string, string> = { code: error.code };
  for (const [key, value] of Object.entries(error.details ?? {})) {
    metadata[key] = typeof value === 'string' ? value : JSON.stringify(value);
  }
  return {
    code: rpcCodeOf(error),
    message: error.message,
    data: [
      {
        '@type': 'type.googleapis.com/google.rpc.ErrorInfo',
        reason: error.code.toUpperCase(),
        domain: 'heed',
        metadata,
      },
    ],
  };
}

export const rpcResult = (id: RpcId, result: unknown) => ({ jsonrpc: '2.0' as const, id, result });
export const rpcFailure = (id: RpcId, thrown: unknown) => ({ jsonrpc: '2.0' as const, id, error: rpcError(thrown) });

/** A refusal of the request's own shape (`-32600`/`-32602`), as a readable HeedError. */
export function badParams(message: string, field: string): RpcError {
  return new RpcError(A2A_CODES.invalidParams, new HeedError('invalid_request', message, { details: { field } }));
}
