/**
 * Adding a kind of action is one new file plus its registration (docs/architecture.md, "Adding an action
 * kind"). This test does exactly that to a copy of Heed's sources: it puts test/fixtures/fifth-kind/rating.ts
 * in src/kinds/rating.ts, adds it to `kinds` in src/kinds/index.ts, and changes nothing else. The copy must
 * then compile (the library, the console and the embeddable cards), and a server built from it must ask for
 * a rating (from a tool, a handler's reply and `POST /api/requests`), store it across a restart, check the answers, lapse it, show it in the inbox, the event log and
 * the OpenAPI document, and render it with the generic card, all over real HTTP on a SQLite file.
 */
import { cpSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { pathToFileURL } from 'node:url';
import ts from 'typescript';
import { z } from 'zod';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

const root = join(import.meta.dirname, '..');
const copy = mkdtempSync(join(tmpdir(), 'heed-fifth-kind-'));
const REGISTRY = 'export const kinds = { approval, question, client_tool: clientTool, url };';

/** Copies the sources (not their tests), adds the kind's file and registers it: the whole change. */
function addTheKind(): void {
  const notTests = (path: string) => !/\.test\.tsx?$/.test(path);
  cpSync(join(root, 'src'), join(copy, 'src'), { recursive: true, filter: notTests });
  cpSync(join(root, 'ui/src'), join(copy, 'ui/src'), { recursive: true, filter: notTests });
  symlinkSync(join(root, 'node_modules'), join(copy, 'node_modules'), 'dir');
  // Its "type": "module" makes the compiler (module NodeNext) read the copy's .ts files as ES modules.
  writeFileSync(join(copy, 'package.json'), readFileSync(join(root, 'package.json')));
  // The fixture's imports, written from test/fixtures/fifth-kind/, as they read from src/kinds/.
  const kind = readFileSync(join(root, 'test/fixtures/fifth-kind/rating.ts'), 'utf8')
    .replaceAll("'../../../src/kinds/", "'./")
    .replaceAll("'../../../src/", "'../");
  writeFileSync(join(copy, 'src/kinds/rating.ts'), kind);
  const registryPath = join(copy, 'src/kinds/index.ts');
  const registry = readFileSync(registryPath, 'utf8');
  if (!registry.includes(REGISTRY))
    throw new Error(`src/kinds/index.ts no longer reads "${REGISTRY}": update this test's registration.`);
  writeFileSync(
    registryPath,
    registry
      .replace(
        "import { url } from './url.js';",
        "import { url } from './url.js';\nimport { rating } from './rating.js';",
      )
      .replace(REGISTRY, REGISTRY.replace('url }', 'url, rating }')),
  );
}

/** The files the compiler read in the copy (relative to it) and its errors there, as `file:line message`. */
function compile(): { files: string[]; errors: string[] } {
  const { config } = ts.readConfigFile(join(root, 'tsconfig.json'), ts.sys.readFile);
  const parsed = ts.parseJsonConfigFileContent(
    {
      ...config,
      include: ['src', 'ui/src'],
      exclude: ['src/store/store-contract.ts'],
      compilerOptions: { ...config.compilerOptions, noEmit: true },
    },
    ts.sys,
    copy,
  );
  const program = ts.createProgram({ rootNames: parsed.fileNames, options: parsed.options });
  const errors = ts.getPreEmitDiagnostics(program).map((diagnostic) => {
    const where = diagnostic.file
      ? `${relative(copy, diagnostic.file.fileName)}:${diagnostic.file.getLineAndCharacterOfPosition(diagnostic.start ?? 0).line + 1}`
      : '';
    return `${where} ${ts.flattenDiagnosticMessageText(diagnostic.messageText, '\n')}`;
  });
  return { files: parsed.fileNames.map((file) => relative(copy, file)), errors };
}

/* eslint-disable @typescript-eslint/no-explicit-any -- the copy's modules, loaded by path, have no static types here. */
type Loaded = Record<string, any>;
const load = (path: string): Promise<Loaded> => import(pathToFileURL(join(copy, 'src', path)).href);

let heed: { serve: Loaded; testing: Loaded; tool: Loaded; responses: Loaded; react: Loaded };
let server: any;
let clock = Date.parse('2030-01-01T09:00:00Z');
const finished: unknown[] = [];
const db = join(copy, 'heed.db');

/** An agent whose tool asks for a rating with ctx.request and returns what it got; the model then says so. */
function reviewer() {
  const model = heed.testing.scriptedModel(({ messages }: { messages: Array<{ role: string; content: any }> }) => {
    const last = messages.at(-1);
    if (last?.role === 'tool') return { text: `Noted: ${JSON.stringify(last.content.at(-1).output.value)}` };
    const text = last?.content.map((part: { text?: string }) => part.text ?? '').join('') ?? '';
    return { toolCalls: [{ toolName: 'rate_reply', input: { quick: text.includes('quick') } }] };
  });
  const rateReply = heed.tool.tool({
    inputSchema: z.object({ quick: z.boolean() }),
    execute: async ({ quick }: { quick: boolean }, ctx: any) => {
      const outcome = await ctx.request({
        kind: 'rating',
        prompt: 'How helpful was the last reply?',
        scale: 5,
        ...(quick ? { expiresInMinutes: 1 } : {}),
      });
      finished.push(outcome.resolution);
      return { status: outcome.status, resolution: outcome.resolution };
    },
  });
  return { name: 'reviewer', model, tools: { rate_reply: rateReply } };
}

async function start() {
  server = await heed.serve.serve({
    config: {
      agents: [
        reviewer(),
        // A handler agent raises it in its reply, as a remote agent would in its JSON.
        {
          name: 'rater',
          handler: {
            processMessage: () => ({
              pendingActions: [{ kind: 'rating', prompt: 'Rate the deploy', scale: 3, expiresInMinutes: 30 }],
            }),
            resolveAction: ({ resolution }: { resolution: { score?: number } }) => ({
              content: `Scored ${resolution.score}.`,
            }),
          },
        },
      ],
      auth: { tokens: { ada: { userId: 'ada' }, bob: { userId: 'bob' } } },
      sweepIntervalMs: 0,
      now: () => new Date(clock),
    },
    db,
    port: 0,
    log: () => undefined,
    console: false,
  });
}

async function api(method: string, path: string, body?: unknown, token = 'ada') {
  const response = await fetch(`${server.url}${path}`, {
    method,
    headers: {
      authorization: `Bearer ${token}`,
      ...(body === undefined ? {} : { 'content-type': 'application/json' }),
    },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  return { status: response.status, body: (await response.json()) as any };
}

beforeAll(async () => {
  addTheKind();
  const [serve, testing, tool, responses, react] = await Promise.all([
    load('cli/serve.ts'),
    load('testing/index.ts'),
    load('tool.ts'),
    load('protocol/responses.ts'),
    load('react/index.ts'),
  ]);
  heed = { serve, testing, tool, responses, react };
  await start();
}, 120_000);

afterAll(async () => {
  await server?.close();
  rmSync(copy, { recursive: true, force: true });
});

describe('a fifth kind of action, added as one file and its registration', () => {
  // A deadline, not a wait: a whole-program check of the copy, on two cores that may be busy.
  it('compiles: the library, the console and the cards need nothing else', { timeout: 300_000 }, () => {
    const { files, errors } = compile();
    expect(files).toEqual(
      expect.arrayContaining([
        'src/kinds/rating.ts',
        'src/kinds/index.ts',
        'src/index.ts',
        'src/react/index.ts',
        'ui/src/main.tsx',
      ]),
    );
    expect(errors).toEqual([]);
  });

  it('a tool asks for it, the pause survives a restart, a bad answer is refused, a good one continues the turn once', async () => {
    const created = await api('POST', '/api/conversations', { agent: 'reviewer' });
    const paused = await api('POST', `/api/conversations/${created.body.id}/messages`, { content: 'rate it' });
    expect(paused.status).toBe(200);
    heed.responses.turnResult.parse(paused.body);
    const [asked] = paused.body.pendingActions;
    expect(asked).toMatchObject({
      kind: 'rating',
      prompt: 'How helpful was the last reply?',
      scale: 5,
      status: 'pending',
      toolName: 'rate_reply',
    });

    // Stored, not held in memory: a new process on the same file has it.
    await server.close();
    await start();
    const snapshot = await api('GET', `/api/conversations/${created.body.id}`);
    heed.responses.snapshot.parse(snapshot.body);
    expect(snapshot.body.pendingActions.map((action: { id: string }) => action.id)).toEqual([asked.id]);

    const path = `/api/conversations/${created.body.id}/actions/${asked.id}`;
    const outOfRange = await api('POST', path, { resolution: { type: 'rating', score: 9 } });
    expect(outOfRange.status).toBe(400);
    expect(heed.responses.errorBody.parse(outOfRange.body).error).toMatchObject({
      code: 'invalid_resolution',
      message: 'Give a whole number from 1 to 5.',
    });
    const otherKind = await api('POST', path, { resolution: { type: 'approval', decision: 'allow' } });
    expect(otherKind.body.error).toMatchObject({
      code: 'invalid_resolution',
      message: 'This action\'s kind is "rating"; the resolution\'s type is "approval".',
    });
    const foreign = await api('POST', path, { resolution: { type: 'rating', score: 4 } }, 'bob');
    expect(foreign.status).toBe(404);
    expect(finished).toEqual([]);

    const answered = await api('POST', path, { resolution: { type: 'rating', score: 4, note: 'Clear enough.' } });
    expect(answered.status).toBe(200);
    heed.responses.turnResult.parse(answered.body);
    expect(answered.body.status).toBe('completed');
    expect(answered.body.messages.at(-1).parts[0].text).toBe(
      'Noted: {"status":"resolved","resolution":{"type":"rating","score":4,"note":"Clear enough."}}',
    );
    expect(finished).toEqual([{ type: 'rating', score: 4, note: 'Clear enough.' }]);

    const again = await api('POST', path, { resolution: { type: 'rating', score: 1 } });
    expect(again.status).toBe(409);
    expect(again.body.error).toMatchObject({
      code: 'action_not_pending',
      details: { resolution: { type: 'rating', score: 4, note: 'Clear enough.' } },
    });
    expect(finished).toHaveLength(1);

    const log = await api('GET', `/api/conversations/${created.body.id}/events`);
    const events = heed.responses.eventsResponse.parse(log.body).events;
    expect(events.find((event: { type: string }) => event.type === 'action.required')?.data).toMatchObject({
      kind: 'rating',
      action: { kind: 'rating', scale: 5 },
    });
    expect(events.find((event: { type: string }) => event.type === 'action.resolved')?.data).toMatchObject({
      kind: 'rating',
      status: 'answered',
      resolvedBy: 'ada',
    });
  });

  it('it waits in the inbox and lapses by its own rule', async () => {
    const created = await api('POST', '/api/conversations', { agent: 'reviewer' });
    const paused = await api('POST', `/api/conversations/${created.body.id}/messages`, { content: 'rate it quick' });
    const [asked] = paused.body.pendingActions;
    expect(asked.expiresAt).toBe('2030-01-01T09:01:00.000Z');
    const inbox = await api('GET', '/api/inbox');
    heed.responses.inboxResponse.parse(inbox.body);
    expect(inbox.body.actions.map((action: { id: string; kind: string }) => [action.id, action.kind])).toEqual([
      [asked.id, 'rating'],
    ]);

    clock += 2 * 60_000;
    await server.heed.expireDue();
    const [lapsed] = (await api('GET', `/api/conversations/${created.body.id}/actions`)).body.actions;
    expect(lapsed).toMatchObject({ id: asked.id, status: 'expired', resolution: { type: 'rating', skipped: true } });
    const events = (await api('GET', `/api/conversations/${created.body.id}/events`)).body.events;
    expect(events.find((event: { type: string }) => event.type === 'action.resolved')?.data).toMatchObject({
      kind: 'rating',
      status: 'skipped',
      channel: 'timeout',
      expired: true,
    });
    const snapshot = await api('GET', `/api/conversations/${created.body.id}`);
    expect(snapshot.body.messages.at(-1).parts[0].text).toBe(
      'Noted: {"status":"expired","resolution":{"type":"rating","skipped":true}}',
    );
    expect((await api('GET', '/api/inbox')).body.actions).toEqual([]);
  });

  it("a handler's reply and a backend's request raise it too, through the shape every writer uses", async () => {
    const created = await api('POST', '/api/conversations', { agent: 'rater' });
    const paused = await api('POST', `/api/conversations/${created.body.id}/messages`, { content: 'deployed' });
    const [asked] = paused.body.pendingActions;
    expect(asked).toMatchObject({ kind: 'rating', prompt: 'Rate the deploy', scale: 3, toolName: 'rating' });
    expect(asked.expiresAt).toBe(new Date(clock + 30 * 60_000).toISOString());
    const done = await api('POST', `/api/conversations/${created.body.id}/actions/${asked.id}`, {
      resolution: { type: 'rating', score: 2 },
    });
    expect(done.body.messages.at(-1).parts[0].text).toBe('Scored 2.');

    const made = await api('POST', '/api/requests', {
      request: { kind: 'rating', prompt: 'Rate the on-call handover', scale: 4 },
      assignees: ['bob'],
    });
    expect(made.status).toBe(201);
    expect(made.body).toMatchObject({ kind: 'rating', scale: 4, toolName: 'request', status: 'pending' });
    const refused = await api('POST', '/api/requests', { request: { kind: 'rating', prompt: 'x', scale: 99 } });
    expect(refused.body.error).toMatchObject({
      code: 'invalid_request',
      message: 'A rating scale goes from 1 up to between 2 and 10.',
    });
    const answered = await api(
      'POST',
      `/api/conversations/${made.body.conversationId}/actions/${made.body.id}`,
      { resolution: { type: 'rating', score: 3 } },
      'bob',
    );
    expect(answered.status).toBe(200);
    expect((await api('GET', `/api/requests/${made.body.id}`)).body).toMatchObject({
      status: 'resolved',
      resolution: { type: 'rating', score: 3 },
      resolvedBy: 'bob',
    });
  });

  it('the OpenAPI document describes its view and its answer', async () => {
    const { body } = await api('GET', '/api/openapi.json');
    const schemas = body.components.schemas;
    expect(Object.keys(schemas.RatingAction.properties)).toEqual(
      expect.arrayContaining(['kind', 'id', 'status', 'prompt', 'scale', 'resolution']),
    );
    expect(schemas.RatingResolution.properties.type).toMatchObject({ const: 'rating' });
    // A request a backend writes may be one.
    expect(JSON.stringify(schemas.CreateRequestRequest)).toContain('"const":"rating"');
    expect(JSON.stringify(schemas)).toContain('#/components/schemas/RatingAction');
  });

  it('the embeddable cards show it with the generic card: its title, its summary and a button per choice', async () => {
    const { renderToString } = await import('react-dom/server');
    const { createElement } = await import('react');
    const view = heed.responses.actionsResponse.parse({
      actions: [
        {
          kind: 'rating',
          id: 'a_1',
          conversationId: 'c_1',
          messageId: 'm_1',
          toolCallId: 'call_1',
          toolName: 'rate_reply',
          status: 'pending',
          createdAt: '2030-01-01T09:00:00.000Z',
          prompt: 'How helpful was the last reply?',
          scale: 3,
        },
      ],
    }).actions[0];
    const html = renderToString(
      createElement(heed.react.ActionCard, { action: view, onSubmit: async () => ({ ok: true }) }),
    );
    expect(html).toContain('How helpful was the last reply?');
    expect(html).toContain('Rate from 1 to 3: How helpful was the last reply?');
    const buttons = [...html.matchAll(/<button[^>]*class="([^"]*)"[^>]*>([^<]*)<\/button>/g)].map(
      ([, className, label]) => `${label}${className.includes('heed-primary') ? ' (primary)' : ''}`,
    );
    expect(buttons).toEqual(['1', '2', '3 (primary)']);
  });
});
