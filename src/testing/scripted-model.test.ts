import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { streamText as streamText6 } from 'ai';
import { streamText as streamText7 } from 'ai-v7';
import { describe, expect, it } from 'vitest';
import { demoAgents } from '../cli/demo-agents.js';
import { createHeed } from '../heed.js';
import { sqliteStore } from '../store/sqlite/sqlite-store.js';
import { scriptedModel } from './scripted-model.js';

function gcFunction(): () => void {
  const exposed = (globalThis as { gc?: () => void }).gc;
  if (exposed) return exposed;
  setFlagsFromString('--expose-gc');
  return runInNewContext('gc') as () => void;
}

/** Collects garbage until the heap stops shrinking, then returns heapUsed. */
async function settledHeap(): Promise<number> {
  const gc = gcFunction();
  let last = Infinity;
  for (let round = 0; round < 6; round++) {
    await new Promise((resolve) => setImmediate(resolve));
    gc();
    const used = process.memoryUsage().heapUsed;
    if (used >= last - 1024) return used;
    last = used;
  }
  return last;
}

const MiB = 1024 * 1024;

describe('scriptedModel of either AI SDK major', () => {
  it('is a LanguageModelV4 that AI SDK 7 itself drives, and a V3 that AI SDK 6 drives', async () => {
    const respond = () => ({ text: 'Hello there.' });
    const v4 = scriptedModel(respond, { specificationVersion: 'v4' });
    const v3 = scriptedModel(respond);
    expect(v4.specificationVersion).toBe('v4');
    expect(v3.specificationVersion).toBe('v3');

    const seven = streamText7({ model: v4, prompt: 'Hi' });
    expect(await seven.text).toBe('Hello there.');
    const six = streamText6({ model: v3, prompt: 'Hi' });
    expect(await six.text).toBe('Hello there.');
    expect(v4.calls[0].messages.at(-1)).toMatchObject({ role: 'user', content: [{ type: 'text', text: 'Hi' }] });
  });
});

describe('what scriptedModel records', () => {
  const prompt = (text: string) => ({
    prompt: [{ role: 'user' as const, content: [{ type: 'text' as const, text }] }],
  });

  it('keeps the latest 10 calls by default, counts every call, and keeps none or all when told', async () => {
    const kept = scriptedModel(() => ({ text: 'ok' }));
    const none = scriptedModel(() => ({ text: 'ok' }), { keepCalls: 0 });
    const all = scriptedModel(() => ({ text: 'ok' }), { keepCalls: Infinity });
    for (let index = 0; index < 25; index++) {
      for (const model of [kept, none, all]) await model.doGenerate(prompt(`message ${index}`));
    }
    expect(kept.callCount).toBe(25);
    expect(kept.calls).toHaveLength(10);
    expect(kept.calls[0].messages[0]).toMatchObject({ content: [{ text: 'message 15' }] });
    expect(kept.calls.at(-1)!.messages[0]).toMatchObject({ content: [{ text: 'message 24' }] });
    expect(none.calls).toHaveLength(0);
    expect(none.callCount).toBe(25);
    expect(all.calls).toHaveLength(25);
  });

  it(
    'holds a bounded heap over many large calls (measured after GC), where keeping every call grows it',
    { timeout: 60_000 },
    async () => {
      // 200 calls, each sent its own 256 KiB prompt (as a store that reads rows back hands out new strings).
      const run = async (keepCalls?: number) => {
        const model = scriptedModel(() => ({ text: 'ok' }), keepCalls === undefined ? {} : { keepCalls });
        const before = await settledHeap();
        for (let index = 0; index < 200; index++) await model.doGenerate(prompt(`${index}:`.padEnd(256 * 1024, 'x')));
        const after = await settledHeap();
        expect(model.callCount).toBe(200);
        return { grew: after - before, model };
      };
      const bounded = await run();
      const everything = await run(Infinity);
      console.log(
        `scriptedModel heap after 200 calls of 256 KiB: default ${(bounded.grew / MiB).toFixed(1)} MiB, keeping all ${(everything.grew / MiB).toFixed(1)} MiB`,
      );
      expect(everything.grew).toBeGreaterThan(40 * MiB);
      expect(bounded.grew).toBeLessThan(8 * MiB);
    },
  );

  it(
    "heed serve's demo agents keep no prompts: 60 turns of 100 KB messages leave the heap where it was",
    { timeout: 120_000 },
    async () => {
      const store = sqliteStore({ path: ':memory:' });
      const heed = createHeed({ agents: demoAgents({ chunkDelayMs: 0 }), store, sweepIntervalMs: 0 });
      await heed.ready();
      const { id } = await heed.createConversation({ agent: 'helpdesk' });
      const chat = heed.conversation(id);
      const intake = await chat.send('hello');
      await chat.resolve(intake.pendingActions![0].id, { type: 'question', skip: true });

      const big = (index: number) => `turn ${index} `.padEnd(100_000, 'y');
      for (let index = 0; index < 10; index++) await chat.send(big(index));
      const before = await settledHeap();
      for (let index = 10; index < 60; index++) expect((await chat.send(big(index))).status).toBe('completed');
      const after = await settledHeap();
      console.log(`demo agent heap over 50 turns of 100 KB: ${((after - before) / MiB).toFixed(1)} MiB`);
      // Keeping each prompt would hold every earlier message again per call: over 100 MiB here.
      expect(after - before).toBeLessThan(25 * MiB);
      await heed.close();
    },
  );
});
