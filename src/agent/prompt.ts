import type {
  LanguageModelV3FunctionTool,
  LanguageModelV3Message,
  LanguageModelV3Prompt,
  LanguageModelV3ToolResultPart,
} from '@ai-sdk/provider';
import { ASK_TOOL_NAME, askToolDescription, questionsJsonSchema } from '../actions/question.js';
import type { AgentConfig } from '../config.js';
import { inputJsonSchema } from '../tool.js';
import type { MessageRecord } from '../types.js';

/** The name of the synthetic tool call that carries an agent's intake questions. */
export const INTAKE_TOOL_NAME = 'intake';

/**
 * Builds what the model is sent from the stored messages. Consecutive tool messages are merged, and
 * a tool call that never got a result (a crash, a cancel) gets one saying so, because providers refuse
 * a call without its result.
 */
export function buildPrompt(agent: AgentConfig, messages: MessageRecord[]): LanguageModelV3Prompt {
  const prompt: LanguageModelV3Message[] = [];
  if (agent.instructions) prompt.push({ role: 'system', content: agent.instructions });

  const answered = new Set<string>();
  for (const message of messages) {
    for (const part of message.parts) if (part.type === 'tool-result') answered.add(part.toolCallId);
  }

  for (let index = 0; index < messages.length; index++) {
    const message = messages[index];
    if (message.role === 'user') {
      const content = message.parts.flatMap((part) => (part.type === 'text' ? [{ type: 'text' as const, text: part.text }] : []));
      prompt.push({ role: 'user', content });
    } else if (message.role === 'assistant') {
      const content: Extract<LanguageModelV3Message, { role: 'assistant' }>['content'] = [];
      const missing: LanguageModelV3ToolResultPart[] = [];
      for (const part of message.parts) {
        if (part.type === 'text') content.push({ type: 'text', text: part.text });
        else if (part.type === 'tool-call') {
          content.push({ type: 'tool-call', toolCallId: part.toolCallId, toolName: part.toolName, input: part.input });
          if (!answered.has(part.toolCallId)) {
            missing.push({
              type: 'tool-result',
              toolCallId: part.toolCallId,
              toolName: part.toolName,
              output: { type: 'error-text', value: 'No result was recorded for this call.' },
            });
          }
        }
      }
      if (content.length > 0) prompt.push({ role: 'assistant', content });
      const results: LanguageModelV3ToolResultPart[] = [];
      while (index + 1 < messages.length && messages[index + 1].role === 'tool') {
        index++;
        for (const part of messages[index].parts) {
          if (part.type === 'tool-result') {
            results.push({ type: 'tool-result', toolCallId: part.toolCallId, toolName: part.toolName, output: part.output });
          }
        }
      }
      results.push(...missing);
      if (results.length > 0) prompt.push({ role: 'tool', content: results });
    }
  }
  return prompt;
}

const toolListCache = new WeakMap<AgentConfig, { withAsk: LanguageModelV3FunctionTool[]; withoutAsk: LanguageModelV3FunctionTool[] }>();

/** The tools offered to the model; the ask tool and client tools only where a person can answer. */
export function offeredTools(agent: AgentConfig, interactive: boolean): LanguageModelV3FunctionTool[] {
  let cached = toolListCache.get(agent);
  if (!cached) {
    const server: LanguageModelV3FunctionTool[] = [];
    const asking: LanguageModelV3FunctionTool[] = [];
    for (const [name, definition] of Object.entries(agent.tools ?? {})) {
      const entry: LanguageModelV3FunctionTool = {
        type: 'function',
        name,
        description: definition.description,
        inputSchema: inputJsonSchema(definition) as LanguageModelV3FunctionTool['inputSchema'],
      };
      (definition.client ? asking : server).push(entry);
    }
    if (agent.ask) {
      asking.push({
        type: 'function',
        name: ASK_TOOL_NAME,
        description: askToolDescription,
        inputSchema: questionsJsonSchema as LanguageModelV3FunctionTool['inputSchema'],
      });
    }
    cached = { withAsk: [...server, ...asking], withoutAsk: server };
    toolListCache.set(agent, cached);
  }
  return interactive ? cached.withAsk : cached.withoutAsk;
}
