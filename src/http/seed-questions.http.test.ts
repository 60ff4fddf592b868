import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startServer, type TestServer } from '../../test/http-fixtures.js';
import { booking, layouts, refactorer } from '../../test/fixtures/seed-questions.js';
import { checkConfig } from '../config-schema.js';

/**
 * Seed 003's own intake, as its page writes it (ids without headers, hotkeys, typed inputs, `when`,
 * `allowFreeText`), served by `heed serve` and answered over real HTTP the way its page shows: an
 * empty answer confirms the pre-picked defaults, explicit answers, a skip, a 400 that says why.
 */
describe("seed 003's intake config, over HTTP", () => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startServer({ agents: [refactorer, booking, layouts] });
  });
  afterAll(async () => {
    await server.close();
  });

  const start = async (agent: string) =>
    (await server.api('POST', '/api/conversations', { token: 'ada', body: { agent } })).body.id as string;
  const send = (id: string, content: string) =>
    server.api('POST', `/api/conversations/${id}/messages`, { token: 'ada', body: { content } });
  const resolve = (id: string, actionId: string, resolution: Record<string, unknown>) =>
    server.api('POST', `/api/conversations/${id}/actions/${actionId}`, {
      token: 'ada',
      body: { resolution: { type: 'question', ...resolution } },
    });

  it('is accepted as written: the questions arrive with headers made from their ids, hotkeys and defaults; an empty answer confirms the defaults', async () => {
    // The config check `heed serve` runs passes it as it stands.
    expect(() => checkConfig({ agents: [refactorer, booking, layouts] }, 'The config')).not.toThrow();
    const id = await start('refactorer');
    const sent = await send(id, 'Tidy up src/parse.ts');
    expect(sent.status).toBe(200);
    expect(sent.body.status).toBe('requires_action');
    const [action] = sent.body.pendingActions;
    expect(action).toMatchObject({
      kind: 'question',
      preamble: 'Three questions before I start. I have pre-picked what I would choose, so confirming is enough.',
    });
    expect(action.questions).toEqual([
      {
        id: 'scope',
        header: 'Scope',
        prompt: 'How much should I cover?',
        options: [
          { value: 'file', label: 'This file', hotkey: 'a' },
          { value: 'module', label: 'The whole module', hotkey: 'b' },
        ],
        multiple: false,
        custom: true,
        defaults: ['module'],
      },
      {
        id: 'tests',
        header: 'Tests',
        prompt: 'Which tests should I touch?',
        options: [
          { value: 'unit', label: 'Unit' },
          { value: 'e2e', label: 'End to end' },
        ],
        multiple: true,
        custom: true,
        defaults: ['unit'],
      },
    ]);

    // "confirm the pre-picked answers — an empty body is a valid submission"
    const confirmed = await resolve(id, action.id, {});
    expect(confirmed.status).toBe(200);
    expect(confirmed.body.status).toBe('completed');
    const settled = (await server.api('GET', `/api/conversations/${id}/actions`, { token: 'ada' })).body.actions[0];
    expect(settled).toMatchObject({
      status: 'resolved',
      resolution: { type: 'question', answers: { scope: ['module'], tests: ['unit'] } },
      defaulted: ['scope', 'tests'],
    });
    // The model reads the answers by label.
    expect(confirmed.body.messages.at(-1).parts[0].text).toBe(
      'Starting. The user answered:\nHow much should I cover? → The whole module\nWhich tests should I touch? → Unit',
    );

    // `when: 'thread-start'` (the default): the next message is not asked again.
    const again = await send(id, 'And the tests too');
    expect(again.body.status).toBe('completed');
  });

  it('takes explicit answers by id and by the option the hotkey names, and a skip', async () => {
    const id = await start('refactorer');
    const [action] = (await send(id, 'go')).body.pendingActions;
    const answered = await resolve(id, action.id, { answers: { scope: ['file'] } });
    expect(answered.body.status).toBe('completed');
    expect(
      (await server.api('GET', `/api/conversations/${id}/actions`, { token: 'ada' })).body.actions[0],
    ).toMatchObject({
      resolution: { answers: { scope: ['file'], tests: ['unit'] } },
      defaulted: ['tests'],
    });

    const other = await start('refactorer');
    const [second] = (await send(other, 'go')).body.pendingActions;
    const skipped = await resolve(other, second.id, { skip: true });
    expect(skipped.body.status).toBe('completed');
    expect(
      (await server.api('GET', `/api/conversations/${other}/actions`, { token: 'ada' })).body.actions[0],
    ).toMatchObject({
      resolution: { type: 'question', skip: true, answers: { scope: ['module'], tests: ['unit'] } },
    });
  });

  it("checks typed answers against the questions' own rules, and `every-turn` asks before each turn", async () => {
    const id = await start('booking');
    const [action] = (await send(id, 'Two seats please')).body.pendingActions;
    expect(action.questions.map((question: { id: string; header: string }) => [question.id, question.header])).toEqual([
      ['seats', 'Seats'],
      ['contact', 'Contact'],
      ['notes', 'Notes'],
    ]);
    expect(action.questions[0]).toMatchObject({
      description: 'Between 1 and 9.',
      input: { type: 'number', min: 1, max: 9, required: true, placeholder: 'e.g. 2' },
      defaults: ['2'],
    });

    const refused = await resolve(id, action.id, { answers: { seats: '12' } });
    expect(refused.status).toBe(400);
    expect(refused.body.error).toMatchObject({ code: 'invalid_resolution' });
    expect(refused.body.error.details.fields).toEqual([
      { field: 'answers.seats', message: '"Seats" must be at most 9.' },
      { field: 'answers.contact', message: '"Contact" needs an answer.' },
    ]);
    // Nothing was consumed: the right answer goes through.
    const answered = await resolve(id, action.id, { answers: { seats: '3', contact: 'ada@example.com' } });
    expect(answered.body.status).toBe('completed');

    const next = await send(id, 'And one more booking');
    expect(next.body.status).toBe('requires_action');
    expect(next.body.pendingActions[0].questions[0].id).toBe('seats');
  });

  it('allowFreeText: false refuses an answer that is not among the options; the preview comes with each option', async () => {
    const id = await start('layouts');
    const [action] = (await send(id, 'Design the settings page')).body.pendingActions;
    expect(action.questions[0]).toMatchObject({ custom: false, defaults: ['sidebar'] });
    expect(action.questions[0].options[1]).toMatchObject({
      value: 'sidebar',
      hotkey: 's',
      preview: expect.stringContaining('│ General <│'),
    });
    const refused = await resolve(id, action.id, { answers: { layout: 'A wizard' } });
    expect(refused.status).toBe(400);
    expect(refused.body.error.message).toBe(
      '"Layout" must be one of the offered options (Tabs, Sidebar, One long page); "A wizard" is not.',
    );
    expect((await resolve(id, action.id, { answers: { layout: 'Tabs' } })).body.status).toBe('completed');
  });
});
