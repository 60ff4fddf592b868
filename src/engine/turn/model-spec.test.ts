import { expect, it } from 'vitest';
import { scriptedModel } from '../../testing/scripted-model.js';
import { callModel } from './model-call.js';

it('calls a model of either specification, and refuses any other with invalid_config naming the agent before calling it', async () => {
  const prompt = [{ role: 'user' as const, content: [{ type: 'text' as const, text: 'hi' }] }];
  for (const version of ['v3', 'v4'] as const) {
    const model = scriptedModel(() => ({ text: `from ${version}`, usage: { inputTokens: 3, outputTokens: 2 } }), {
      specificationVersion: version,
    });
    const step = await callModel(model, prompt, [], () => undefined, new AbortController().signal, 'support');
    expect(step).toEqual({ text: `from ${version}`, toolCalls: [], tokens: 5 });
  }

  let called = 0;
  const v2 = {
    specificationVersion: 'v2',
    provider: 'old',
    modelId: 'm',
    doStream: async () => (called++, { stream: new ReadableStream() }),
  };
  await expect(
    callModel(v2 as never, prompt, [], () => undefined, new AbortController().signal, 'legacy'),
  ).rejects.toMatchObject({
    code: 'invalid_config',
    message:
      'Agent "legacy" needs an AI SDK 7 (specification v4) or AI SDK 6 (v3) language model object; it has specificationVersion "v2".',
  });
  await expect(
    callModel('gpt-4o' as never, prompt, [], () => undefined, new AbortController().signal, 'named'),
  ).rejects.toMatchObject({
    message:
      'Agent "named" needs an AI SDK 7 (specification v4) or AI SDK 6 (v3) language model object; it has the string "gpt-4o".',
  });
  expect(called).toBe(0);
});
