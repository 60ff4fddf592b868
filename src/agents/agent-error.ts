/** A call to an agent that runs elsewhere failed (it threw, or its service refused): the turn fails with code `agent_error`. */
export class AgentError extends Error {
  readonly code = 'agent_error';
}
