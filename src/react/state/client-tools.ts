import type { ClientToolActionView } from '../../views.js';

/** What a client tool handler is given besides the call's arguments. */
export interface ClientToolContext {
  /** The pending action: `toolName`, `clientKind`, `timeoutSeconds`, `conversationId`… */
  action: ClientToolActionView;
  /** Aborted when the tool's `timeoutSeconds` pass or the conversation is closed. */
  signal: AbortSignal;
}

/**
 * Runs a client tool in the page: returns the output (checked by the server against the tool's
 * `outputSchema`), or throws; the thrown message is what the model reads as the tool's error.
 */
export type ClientToolHandler = (args: unknown, context: ClientToolContext) => unknown | Promise<unknown>;

/** Handlers by tool name or client kind. */
export interface ClientToolRegistry {
  /** Registers a handler for a tool name or a `client.kind`; returns a function that removes it. */
  register(name: string, handler: ClientToolHandler): () => void;
  /** The handler for an action: by its tool name first, then by its client kind. */
  find(action: Pick<ClientToolActionView, 'toolName' | 'clientKind'>): ClientToolHandler | undefined;
}

export function createClientToolRegistry(): ClientToolRegistry {
  const handlers = new Map<string, ClientToolHandler>();
  return {
    register(name, handler) {
      handlers.set(name, handler);
      return () => {
        if (handlers.get(name) === handler) handlers.delete(name);
      };
    },
    find(action) {
      return handlers.get(action.toolName) ?? (action.clientKind ? handlers.get(action.clientKind) : undefined);
    },
  };
}

/** The registry conversations use unless they are given their own. */
export const defaultClientTools: ClientToolRegistry = createClientToolRegistry();

/**
 * Registers how this page answers a client tool, by tool name (`get_selection`) or by the tool's
 * `client.kind` (`page`). Returns a function that removes the handler.
 */
export function registerClientTool(name: string, handler: ClientToolHandler): () => void {
  return defaultClientTools.register(name, handler);
}

/** The outcome of running a handler: the resolution to send. */
export type ClientToolOutcome = { type: 'client_tool'; output: unknown } | { type: 'client_tool'; error: string };

/** Runs a handler with the action's time limit; a throw, a timeout or an abort becomes `{ error }`. */
export async function runClientTool(
  handler: ClientToolHandler,
  action: ClientToolActionView,
  signal?: AbortSignal,
): Promise<ClientToolOutcome> {
  const controller = new AbortController();
  const abort = () => controller.abort();
  signal?.addEventListener('abort', abort, { once: true });
  let timer: ReturnType<typeof setTimeout> | undefined;
  const timedOut = new Promise<ClientToolOutcome>((resolve) => {
    if (action.timeoutSeconds === undefined) return;
    timer = setTimeout(() => {
      controller.abort();
      resolve({ type: 'client_tool', error: `The page did not answer within ${action.timeoutSeconds} seconds.` });
    }, action.timeoutSeconds * 1000);
  });
  const run = (async (): Promise<ClientToolOutcome> => {
    try {
      const output = await handler(action.args, { action, signal: controller.signal });
      return { type: 'client_tool', output: output === undefined ? null : output };
    } catch (thrown) {
      const message = thrown instanceof Error ? thrown.message : String(thrown);
      return { type: 'client_tool', error: message || 'The page could not run this tool.' };
    }
  })();
  try {
    return await Promise.race([run, timedOut]);
  } finally {
    clearTimeout(timer);
    signal?.removeEventListener('abort', abort);
  }
}

const STARTED_KEY = 'heed.started-conversations';
const startedInMemory = new Set<string>();

function sessionStore(): Storage | undefined {
  try {
    return globalThis.sessionStorage ?? undefined;
  } catch {
    return undefined; // storage can be switched off; the in-memory list still holds this page's own
  }
}

/**
 * Notes that this page started the conversation `id` (kept in the tab's session storage, and in
 * memory). An ownerless conversation is open to anyone who has its id, so client tools run on their
 * own only in one the page started itself; call this after `client.createConversation(...)`.
 */
export function rememberStartedConversation(id: string): void {
  startedInMemory.add(id);
  const storage = sessionStore();
  if (!storage) return;
  try {
    const ids = startedConversationIds(storage).filter((item) => item !== id);
    storage.setItem(STARTED_KEY, JSON.stringify([id, ...ids].slice(0, 200)));
  } catch {
    // Full or switched off: the in-memory list still holds it.
  }
}

/** Whether this page (this tab's session) started the conversation `id`. */
export function wasStartedHere(id: string): boolean {
  if (startedInMemory.has(id)) return true;
  const storage = sessionStore();
  return storage ? startedConversationIds(storage).includes(id) : false;
}

function startedConversationIds(storage: Storage): string[] {
  try {
    const value = JSON.parse(storage.getItem(STARTED_KEY) ?? '[]') as unknown;
    return Array.isArray(value) ? value.filter((item): item is string => typeof item === 'string') : [];
  } catch {
    // Storage written by something else: start over with no conversations.
    return [];
  }
}
