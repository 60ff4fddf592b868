import { readFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createClient, createQuestionForm, HeedApiError, type QuestionActionView } from 'heed/client';
import { startServer, type TestServer } from '../../test/http-fixtures.js';
import { booking } from '../../test/fixtures/seed-questions.js';
import type { AgentConfig } from '../config.js';
import { scriptedModel } from '../testing/scripted-model.js';

/**
 * Bring your own UI (seed 003): a front end of one's own, built on heed/client alone (no React), asks the
 * questions of an action with the headless form and answers over real HTTP.
 */

/** A pattern the browser may not run (left to the server's RE2), so only the server can refuse the answer. */
const codes: AgentConfig = {
  name: 'codes',
  model: scriptedModel(({ messages }) => (messages.at(-1)?.role === 'tool' ? { text: 'Noted.' } : { text: 'Hi.' })),
  intake: { questions: [{ id: 'code', prompt: 'Which code?', input: { type: 'text', pattern: '(a|b)*' } }] },
};

describe('bring your own UI with heed/client', () => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startServer({ agents: [booking, codes] });
  });
  afterAll(async () => {
    await server.close();
  });

  it('value, setValue, error, isValid and defaults drive a form of its own; the answer it sends is the one stored', async () => {
    const client = createClient({ baseUrl: server.url, token: 'ada' });
    const conversation = await client.createConversation({ agent: 'booking' });
    const turn = await client.send(conversation.id, 'Book a table');
    const action = turn.pendingActions![0] as QuestionActionView;
    const form = createQuestionForm(action.questions);

    // What a custom UI renders: each question with its value (the defaults entered) and error.
    const rendered = () =>
      form
        .getState()
        .fields.map(
          (field) => `${field.question.prompt} [${field.value ?? ''}]${field.error ? ` ! ${field.error}` : ''}`,
        );
    expect(rendered()).toEqual([
      'How many seats? [2]',
      'Who should we email? [] ! "Contact" needs an answer.',
      'Anything else? []',
    ]);
    expect(form.field('seats')!.defaults).toEqual(['2']);
    expect(form.getState().isValid).toBe(false);

    // As a person types: the same sentence the server would answer, before anything is sent.
    form.field('seats')!.setValue('12');
    form.field('contact')!.setValue('ada@example');
    expect(rendered()).toEqual([
      'How many seats? [12] ! "Seats" must be at most 9.',
      'Who should we email? [ada@example] ! "Contact" must be an email address, like name@example.com; "ada@example" is not.',
      'Anything else? []',
    ]);
    form.field('seats')!.setValue(4);
    form.field('contact')!.setValue('ada@example.com');
    expect(form.getState().isValid).toBe(true);

    const done = await client.answer(conversation.id, action.id, form.resolution());
    expect(done.status).toBe('completed');
    const [stored] = await client.actions(conversation.id);
    expect(stored).toMatchObject({
      status: 'resolved',
      resolution: { answers: { seats: ['4'], contact: ['ada@example.com'] } },
    });
  });

  it("an answer only the server can check is refused over HTTP; the form shows the server's sentence beside the field", async () => {
    const client = createClient({ baseUrl: server.url, token: 'ada' });
    const conversation = await client.createConversation({ agent: 'codes' });
    const action = (await client.send(conversation.id, 'hello')).pendingActions![0] as QuestionActionView;
    const form = createQuestionForm(action.questions);
    form.setValue('code', 'abc');
    // The browser does not run this pattern, so the form finds nothing wrong...
    expect(form.getState().isValid).toBe(true);
    const refused = await client
      .answer(conversation.id, action.id, form.resolution())
      .catch((thrown: unknown) => thrown);
    expect(refused).toBeInstanceOf(HeedApiError);
    // ...and shows what the server said, where it belongs.
    expect(form.showServerErrors((refused as HeedApiError).details)).toEqual(['code']);
    expect(form.field('code')!.error).toBe('"Code" must match the pattern (a|b)*; "abc" does not.');
    form.setValue('code', 'abba');
    expect(form.field('code')!.error).toBeNull();
    expect((await client.answer(conversation.id, action.id, form.resolution())).status).toBe('completed');
  });

  it('heed/client loads no React: no module it imports names react or ink', () => {
    const seen = new Set<string>();
    const packages = new Set<string>();
    const visit = (file: string) => {
      if (seen.has(file)) return;
      seen.add(file);
      const source = readFileSync(file, 'utf8');
      for (const match of source.matchAll(/^\s*(?:import|export)\s[^'"]*?from\s+'([^']+)'/gm)) {
        const target = match[1];
        if (!target.startsWith('.')) packages.add(target);
        else visit(resolve(dirname(file), target.replace(/\.js$/, '.ts')));
      }
    };
    visit(join(import.meta.dirname, 'index.ts'));
    expect([...packages].filter((name) => /^(react|react-dom|ink)(\/|$)/.test(name))).toEqual([]);
    expect(seen.has(join(import.meta.dirname, 'question-form.ts'))).toBe(true);
  });
});
