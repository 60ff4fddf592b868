import type { AgentHandler } from './handler-types.js';

/** An agent config whose work is a handler: what the framework adapters return, for `createHeed({ agents })`. */
export interface HandlerAgent {
  name: string;
  description?: string;
  handler: AgentHandler;
}
