/**
 * `heed/langgraph`: a LangGraph.js graph as a Heed agent (docs/frameworks.md). Needs `@langchain/langgraph`,
 * an optional peer dependency, loaded when the agent first runs.
 */
export { langgraphAgent, lastAssistantText } from '../agents/langgraph/langgraph-agent.js';
export type { GraphSnapshot, LangGraphAgentOptions, LangGraphGraph } from '../agents/langgraph/langgraph-agent.js';
export type { HandlerAgent } from '../agents/handler-agent.js';
export type { MiddlewareAction } from '../agents/langgraph/interrupts.js';
export { storeCheckpointSaver, checkpointScope } from '../agents/langgraph/checkpoint-saver.js';
export type { StoreCheckpointSaver } from '../agents/langgraph/checkpoint-saver.js';
