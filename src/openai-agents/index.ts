/**
 * `heed/openai-agents`: an OpenAI Agents JS agent as a Heed agent (docs/frameworks.md). Needs `@openai/agents`,
 * an optional peer dependency, loaded when the agent first runs.
 */
export { openaiAgent, EDITS_REFUSED } from '../agents/openai-agents/openai-agent.js';
export type { OpenAIAgentOptions } from '../agents/openai-agents/openai-agent.js';
export type { HandlerAgent } from '../agents/handler-agent.js';
