/**
 * What a user's TypeScript project writes, type-checked by published-types.test.ts against the built
 * declarations (dist/*.d.ts), never against the sources. AI SDK 7 is what `npm i ai` installs; this
 * repository has it under aliases (`ai-v7`, `@ai-sdk/openai-v4`), where a user writes `ai` and
 * `@ai-sdk/openai`. Nothing here is cast.
 */
import { createOpenAI as createOpenAI6 } from '@ai-sdk/openai';
import { createOpenAI } from '@ai-sdk/openai-v4';
import { MockLanguageModelV3 } from 'ai/test';
import { MockLanguageModelV4 } from 'ai-v7/test';
import { createHeed, defineConfig, type AgentConfig } from 'heed';
import { scriptedModel } from 'heed/testing';

const openai = createOpenAI({ apiKey: 'sk-test' });
const openai6 = createOpenAI6({ apiKey: 'sk-test' });

// AI SDK 7 (specification v4): a provider model and the SDK's own mock.
const seven: AgentConfig[] = [
  { name: 'chat', model: openai.chat('gpt-4o-mini') },
  { name: 'responses', model: openai('gpt-4o-mini') },
  { name: 'mock', model: new MockLanguageModelV4() },
  { name: 'scripted', model: scriptedModel(() => ({ text: 'Hi.' }), { specificationVersion: 'v4' }) },
];

// AI SDK 6 (specification v3) is still supported, beside it.
const six: AgentConfig[] = [
  { name: 'chat6', model: openai6.chat('gpt-4o-mini') },
  { name: 'mock6', model: new MockLanguageModelV3() },
  { name: 'scripted6', model: scriptedModel(() => ({ text: 'Hi.' })) },
];

export const heed = createHeed({ agents: [...seven, ...six, { name: 'inline', model: new MockLanguageModelV4() }] });
export const config = defineConfig({ agents: [{ name: 'helpdesk', model: openai.chat('gpt-4o-mini') }] });

// The model type is not `any`: an object of another specification is refused.
// @ts-expect-error specificationVersion 'v2' is neither AI SDK 6 nor 7
export const refused: AgentConfig = { name: 'old', model: { specificationVersion: 'v2', provider: 'x', modelId: 'y' } };

// A scripted v4 model's prompt is typed, and its calls are recorded.
const scripted = scriptedModel(({ messages }) => ({ text: String(messages.length) }), { specificationVersion: 'v4' });
export const v4: 'v4' = scripted.specificationVersion;
export const sent: number = scripted.calls.length;
