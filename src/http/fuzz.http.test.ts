import { mkdtempSync, rmSync } from 'node:fs';
import { connect } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { conversationProblems, readConversation } from '../../test/invariants.js';
import { supportAgent, tokens } from '../../test/http-fixtures.js';
import { errorStatus } from '../errors.js';
import { serve } from '../cli/serve.js';
import { createHeed, type Heed } from '../heed.js';
import { memoryStore } from '../store/memory/memory-store.js';
import { sqliteStore } from '../store/sqlite/sqlite-store.js';
import { sizes } from '../../test/sizes.js';
import { apiRoutes, createApp, type HeedApp } from './app.js';

/**
 * Hostile input on every route (path, query, headers, body): the answer is always a 4xx with a code
 * from the catalogue and a short body, never a 500, and a refused request changes no record. Runs
 * in-process against the app and a SQLite file, the production default.
 */

const MAX_ERROR_BYTES = 16 * 1024;
const routes = apiRoutes();
const dir = mkdtempSync(join(tmpdir(), 'heed-fuzz-'));
let heed: Heed;
let app: HeedApp;
const shutdown = new AbortController();

interface Fixtures {
  /** Ada's conversations, one per kind of pause plus an idle one; and an anonymous caller's paused one. */
  ids: string[];
  actionIds: string[];
  /** What is stored for each, to prove a refused request changed nothing. */
  snapshot: string;
}
let fixtures: Fixtures;
const tally = { requests: 0, byStatus: new Map<number, number>(), byCode: new Map<string, number>() };

interface Sent {
  method: string;
  path: string;
  body?: string | Uint8Array;
  headers?: Record<string, string>;
}

async function send(request: Sent): Promise<{ status: number; text: string }> {
  const headers: Record<string, string> = { 'content-type': 'application/json', ...request.headers };
  const response = await app.request(request.path, {
    method: request.method,
    headers,
    body: request.body as BodyInit | undefined,
  });
  // A live stream never ends by itself: its status and headers are all there is to check.
  const text = response.headers.get('content-type')?.startsWith('text/event-stream')
    ? (await response.body?.cancel(), '')
    : await response.text();
  tally.requests++;
  tally.byStatus.set(response.status, (tally.byStatus.get(response.status) ?? 0) + 1);
  return { status: response.status, text };
}

async function snapshot(ids: string[]): Promise<string> {
  const stored = await Promise.all(
    ids.map(async (id) => ({
      stored: await readConversation(heed.store!, id),
      remembered: await heed.store!.listRememberedTools(id),
    })),
  );
  return JSON.stringify(stored);
}

async function makeFixtures(): Promise<Fixtures> {
  const json = async (path: string, body: unknown, token?: string) => {
    const response = await app.request(path, {
      method: 'POST',
      headers: { 'content-type': 'application/json', ...(token ? { authorization: `Bearer ${token}` } : {}) },
      body: JSON.stringify(body),
    });
    return (await response.json()) as { id: string; pendingActions?: Array<{ id: string }> };
  };
  const ids: string[] = [];
  const actionIds: string[] = [];
  for (const [content, token] of [
    ['refund', 'ada'],
    ['ask', 'ada'],
    ['page', 'ada'],
    ['link', 'ada'],
    [null, 'ada'],
    ['refund twice', undefined],
  ] as const) {
    const { id } = await json('/api/conversations', { agent: 'support', metadata: { fixture: content } }, token);
    ids.push(id);
    if (content)
      actionIds.push(
        ...((await json(`/api/conversations/${id}/messages`, { content }, token)).pendingActions ?? []).map(
          (action) => action.id,
        ),
      );
  }
  return { ids, actionIds, snapshot: await snapshot(ids) };
}

/** Checks one answer; a refused one must have changed nothing. A successful write gets fresh fixtures. */
async function check(request: Sent, response: { status: number; text: string }): Promise<void> {
  const where = `${request.method} ${request.path.slice(0, 200)} → ${response.status} ${response.text.slice(0, 300)}`;
  expect(response.status, where).toBeLessThan(500);
  if (response.status >= 400) {
    expect(response.text.length, where).toBeLessThanOrEqual(MAX_ERROR_BYTES);
    const body = JSON.parse(response.text) as { error: { code: keyof typeof errorStatus; message: string } };
    expect(Object.keys(body), where).toEqual(['error']);
    expect(errorStatus[body.error.code], where).toBe(response.status);
    expect(body.error.message, where).toMatch(/\S/);
    tally.byCode.set(body.error.code, (tally.byCode.get(body.error.code) ?? 0) + 1);
    expect(await snapshot(fixtures.ids), where).toBe(fixtures.snapshot);
  } else if (request.method !== 'GET') {
    for (const id of fixtures.ids) expect(await conversationProblems(heed.store!, id), where).toEqual([]);
    fixtures = await makeFixtures();
  }
  // Nothing a client sent reached a prototype.
  expect(({} as Record<string, unknown>).polluted, where).toBeUndefined();
}

beforeAll(async () => {
  // Fixtures are made anew after every accepted write: far more new conversations a minute than a caller may start.
  heed = createHeed({
    agents: [supportAgent(new Map())],
    store: sqliteStore({ path: join(dir, 'fuzz.db') }),
    sweepIntervalMs: 0,
    limits: { conversationsPerMinute: 0 },
  });
  app = createApp(heed, { auth: { tokens }, signal: shutdown.signal });
  fixtures = await makeFixtures();
});

afterAll(async () => {
  shutdown.abort();
  await heed.close();
  rmSync(dir, { recursive: true, force: true });
  const statuses = [...tally.byStatus]
    .sort(([a], [b]) => a - b)
    .map(([status, count]) => `${status}×${count}`)
    .join(' ');
  console.log(
    `fuzz: ${tally.requests} requests; ${statuses}; codes ${[...tally.byCode].map(([code, count]) => `${code}×${count}`).join(' ')}`,
  );
});

// ------------------------------------------------------------------ what is sent

const deep = (levels: number, inner = '0') => '['.repeat(levels) + inner + ']'.repeat(levels);
const protoKeys = [
  '__proto__',
  'constructor',
  'prototype',
  'toString',
  'hasOwnProperty',
  '__defineGetter__',
  'valueOf',
];

/** Path segments: real ids, and ids no server hands out (invalid percent-encodings, CR/LF, huge, dots). */
const hostileSegment = fc.oneof(
  fc.string({ unit: 'binary', maxLength: 30 }).map(encodeURIComponent),
  fc.constantFrom(
    '%ff',
    '%fe%ff',
    '%E0%A4%A',
    '%',
    '%%',
    '%00',
    'a%0D%0Ab',
    '%0D%0ASet-Cookie:%20x=1',
    '%0A',
    '..',
    '%2e%2e',
    '%2F',
    '%C0%AF',
    '%20',
    'null',
    'undefined',
    '0',
    '-1',
    '1e999',
    ...protoKeys,
  ),
  fc.integer({ min: 150, max: 8000 }).map((length) => 'x'.repeat(length)),
);
const segment = (real: () => string[]) =>
  fc.oneof(
    { weight: 3, arbitrary: fc.nat().map((index) => real()[index % real().length]) },
    { weight: 4, arbitrary: hostileSegment },
  );

const queryValue = fc.oneof(
  fc.string({ maxLength: 20 }),
  fc.constantFrom(
    '',
    '-1',
    '0',
    '1e400',
    'NaN',
    'Infinity',
    '0x10',
    '9007199254740993',
    '1.5',
    'true',
    '[]',
    '{}',
    '%ff',
    '%0D%0A',
    'requires_action',
    'idle',
  ),
  fc.integer({ min: 300, max: 20_000 }).map((length) => 'y'.repeat(length)),
  fc.jsonValue().map((value) => Buffer.from(JSON.stringify(value) ?? 'null').toString('base64url')),
);
const queryKey = fc.constantFrom('status', 'agent', 'limit', 'after', 'cursor', 'stream', ...protoKeys, 'x');
const query = fc
  .array(fc.tuple(queryKey, queryValue), { maxLength: 4 })
  .map((pairs) =>
    pairs.length
      ? `?${pairs.map(([key, value]) => `${key}=${/%/.test(value) ? value : encodeURIComponent(value)}`).join('&')}`
      : '',
  );

/**
 * A JSON value that may be replaced, once written out, by one nested 65 to 120,000 levels deep or by
 * an object with a `__proto__` key: where a route takes any JSON (metadata, arguments, output).
 */
const DEEP = '\u0000deep:';
const PROTO = '\u0000proto';
const value: fc.Arbitrary<unknown> = fc.oneof(
  { weight: 4, arbitrary: fc.jsonValue() },
  fc.integer({ min: 65, max: 120_000 }).map((levels) => `${DEEP}${levels}`),
  fc.constant(PROTO),
);
function render(sent: unknown): string {
  return (JSON.stringify(sent) ?? 'null')
    .replace(/"\\u0000deep:(\d+)"/g, (_, levels: string) => deep(Number(levels)))
    .replace(/"\\u0000proto"/g, '{"__proto__":{"polluted":true},"constructor":{"prototype":{"polluted":true}}}');
}

/** Near-valid bodies of each route with one part made hostile, and bodies no client should send. */
const resolution = fc.record(
  {
    type: fc.oneof(fc.constantFrom('approval', 'question', 'client_tool', 'url', 'cancelled', ''), fc.jsonValue()),
    decision: fc.oneof(fc.constantFrom('allow', 'deny', 'accept', 'decline', 'cancel'), fc.jsonValue()),
    comment: fc.oneof(fc.string(), fc.constant('c'.repeat(5000)), fc.jsonValue()),
    approvedArgs: fc.oneof(value, fc.dictionary(fc.constantFrom('orderId', 'amount', ...protoKeys), value)),
    remember: fc.jsonValue(),
    answers: fc.oneof(
      value,
      fc.dictionary(
        fc.oneof(fc.constantFrom('size', 'qty', 'Size', 'Quantity', ...protoKeys), fc.string()),
        fc.oneof(value, fc.array(fc.string())),
      ),
    ),
    skip: fc.jsonValue(),
    dismiss: fc.jsonValue(),
    output: value,
    error: fc.oneof(fc.string(), fc.jsonValue()),
  },
  { requiredKeys: [] },
);
const nearValid: Record<string, fc.Arbitrary<unknown>> = {
  createConversation: fc.record(
    {
      agent: fc.oneof(fc.constantFrom('support', '', 'nope', ...protoKeys), fc.jsonValue()),
      metadata: fc.oneof(value, fc.dictionary(fc.string(), value)),
    },
    { requiredKeys: [] },
  ),
  sendMessage: fc.record(
    { content: fc.oneof(fc.string(), fc.constant(''), fc.constant(' \n\t '), fc.jsonValue()), stream: fc.jsonValue() },
    { requiredKeys: [] },
  ),
  resolveAction: fc.record(
    { resolution: fc.oneof(resolution, fc.jsonValue()), stream: fc.jsonValue() },
    { requiredKeys: [] },
  ),
  branchConversation: fc.record({ fromMessageId: fc.oneof(fc.string(), fc.jsonValue()) }, { requiredKeys: [] }),
};

/** Text put where a JSON value would go, to nest deeply or use a prototype key a serializer drops. */
function embed(json: string, hostile: string): string {
  if (!json.startsWith('{') || json === '{}') return `{"x":${hostile}}`;
  return `{"extra":${hostile},${json.slice(1)}`;
}

const body = (operationId: string) =>
  fc.oneof(
    { weight: 5, arbitrary: (nearValid[operationId] ?? value).map(render) },
    fc.jsonValue().map((value) => JSON.stringify(value)),
    fc.string({ unit: 'binary', maxLength: 200 }),
    fc.uint8Array({ maxLength: 200 }),
    fc
      .tuple((nearValid[operationId] ?? fc.constant({})).map(render), fc.integer({ min: 65, max: 120_000 }))
      .map(([json, levels]) => embed(json, deep(levels))),
    fc
      .tuple((nearValid[operationId] ?? fc.constant({})).map(render), fc.constantFrom(...protoKeys), fc.jsonValue())
      .map(([json, key, extra]) => embed(json, `{"${key}":${JSON.stringify(extra)},"__proto__":{"polluted":true}}`)),
  );

const caller = fc.oneof(
  { weight: 6, arbitrary: fc.constant<Record<string, string>>({ authorization: 'Bearer ada' }) },
  fc.constantFrom<Record<string, string>>(
    { authorization: 'Bearer adaPage' },
    {},
    { authorization: 'Bearer bob' },
    { authorization: 'Bearer nope' },
    { authorization: 'Basic YWRhOmFkYQ==' },
    { authorization: 'Bearer' },
  ),
);
const extraHeaders = fc.record(
  {
    'content-type': fc.constantFrom(
      'application/json',
      'text/plain',
      'application/x-www-form-urlencoded',
      'application/json; charset=latin1',
      '',
    ),
    'last-event-id': fc.oneof(
      fc.constantFrom('', '-1', '1e400', 'abc', '9007199254740993', '3'),
      fc.string({ maxLength: 20 }).filter((text) => /^[\x20-\x7e]*$/.test(text)),
    ),
  },
  { requiredKeys: [] },
);

const request = fc.constantFrom(...routes).chain((route) => {
  const { method, path, operationId } = route.spec;
  const names = [...path.matchAll(/:(\w+)/g)].map((match) => match[1]);
  const real: Record<string, () => string[]> = {
    id: () => fixtures.ids,
    actionId: () => fixtures.actionIds,
    tool: () => ['issue_refund', 'nope'],
  };
  return fc
    .record({
      params: fc.tuple(...names.map((name) => segment(real[name] ?? (() => ['x'])))),
      query,
      body: method === 'get' ? fc.constant(undefined) : fc.option(body(operationId), { nil: undefined }),
      caller,
      headers: extraHeaders,
    })
    .map(({ params, query: search, body: sent, caller: auth, headers }): Sent => {
      let filled = path;
      names.forEach((name, index) => (filled = filled.replace(`:${name}`, params[index] as string)));
      return { method: method.toUpperCase(), path: filled + search, body: sent, headers: { ...headers, ...auth } };
    });
});

// ------------------------------------------------------------------ the tests

describe('hostile input on every route', () => {
  it(
    'random paths, queries, headers and bodies: never a 500, always a coded 4xx, no record changed',
    { timeout: 300_000 },
    async () => {
      await fc.assert(
        fc.asyncProperty(request, async (sent) => {
          await check(sent, await send(sent));
        }),
        {
          numRuns: sizes.fuzz.runs,
          seed: sizes.fuzz.seed,
          verbose: 1,
        },
      );
    },
  );

  it('each route, each kind of hostile body and path, named one by one', async () => {
    // Each body with the status it must get on a route that takes a body (any 4xx where the route decides).
    const bodies: Array<[string, string | Uint8Array, number?]> = [
      ['not JSON', '{"agent": ', 400],
      ['invalid UTF-8', new Uint8Array([0x7b, 0x22, 0x61, 0x22, 0x3a, 0x22, 0xff, 0xfe, 0xc0, 0xaf, 0x22, 0x7d]), 400],
      ['a lone surrogate', '{"content":"\\ud800","agent":"\\udfff"}'],
      ['a number', '42', 400],
      ['null', 'null', 400],
      ['a list', '[]', 400],
      ['65 levels', `{"x":${deep(64)}}`, 400],
      ['100,000 levels', `{"agent":"support","content":"hi","metadata":{"x":${deep(100_000)}}}`, 400],
      ['__proto__ at the top', '{"__proto__":{"polluted":true},"agent":"support","content":"hi"}', 400],
      [
        '__proto__ inside',
        '{"agent":"support","metadata":{"a":{"__proto__":{"polluted":true}}},"resolution":{"type":"approval","decision":"allow","approvedArgs":{"__proto__":{"orderId":1}}}}',
        400,
      ],
      ['constructor keys', '{"constructor":{"prototype":{"polluted":true}},"agent":"support"}'],
      ['wrong types', '{"agent":42,"content":["hi"],"stream":"yes","resolution":"allow","fromMessageId":{}}', 400],
      ['1 MiB and one byte', JSON.stringify({ content: 'x'.repeat(1024 * 1024) }), 413],
      [
        '60,000 stray keys',
        JSON.stringify(Object.fromEntries(Array.from({ length: 60_000 }, (_, index) => [`k${index}`, 1]))),
        400,
      ],
      [
        '60,000 answers',
        JSON.stringify({
          resolution: {
            type: 'question',
            answers: Object.fromEntries(Array.from({ length: 60_000 }, (_, index) => [`k${index}`, 'v'])),
          },
        }),
      ],
      [
        'a 100,000-item answer',
        JSON.stringify({
          resolution: {
            type: 'question',
            answers: { size: Array.from({ length: 100_000 }, (_, index) => `v${index}`) },
          },
        }),
      ],
      [
        'CR/LF in values',
        JSON.stringify({
          agent: 'support\r\nX: y',
          content: 'a\r\n\r\nevent: turn.done\r\ndata: {}',
          fromMessageId: 'm\r\n',
        }),
      ],
    ];
    const [paused, asked] = fixtures.ids;
    const paths = [
      `/api/conversations/${paused}/%ff`,
      `/api/conversations/a%0D%0Ab`,
      `/api/conversations/${paused}%0D%0A/actions`,
      `/api/conversations/${asked}/actions/%E0%A4%A`,
      `/api/conversations/${'x'.repeat(10_000)}`,
      `/api/conversations/${paused}/remembered-tools/${'%0D%0A'.repeat(50)}`,
      `/api/inbox?cursor=${Buffer.from(JSON.stringify({ createdAt: 'garbage', id: 'x' })).toString('base64url')}`,
      `/api/inbox?cursor=${Buffer.from(JSON.stringify({ createdAt: '2030-01-01T00:00:00Z', id: { $gt: '' } })).toString('base64url')}`,
      `/api/conversations/${paused}/events?after=1e400&limit=-5`,
      `/api/conversations/${paused}/events?after=9007199254740993`,
      `/api/conversations?limit=0&status=running%0D%0A`,
    ];
    // The first fixture pauses on an approval; a write that succeeds swaps the fixtures, so ids are read each time.
    const filled = (path: string) =>
      path.replace(':id', fixtures.ids[0]).replace(':actionId', fixtures.actionIds[0]).replace(':tool', 'issue_refund');
    for (const route of routes) {
      const { method, path } = route.spec;
      if (method !== 'get') {
        for (const [what, sent, status] of bodies) {
          const request: Sent = {
            method: method.toUpperCase(),
            path: filled(path),
            body: sent,
            headers: { authorization: 'Bearer ada' },
          };
          const response = await send(request);
          await check(request, response);
          if (route.spec.body && status)
            expect([what, route.spec.operationId, response.status]).toEqual([what, route.spec.operationId, status]);
        }
      }
      const request: Sent = {
        method: method.toUpperCase(),
        path: `${filled(path)}?__proto__[polluted]=1&constructor=x`,
        headers: { authorization: 'Bearer ada' },
      };
      await check(request, await send(request));
    }
    for (const path of paths) {
      const request: Sent = { method: 'GET', path, headers: { authorization: 'Bearer ada', 'last-event-id': '\t7 ' } };
      const response = await send(request);
      await check(request, response);
      expect([path, response.status]).not.toEqual([path, 200]);
    }
    // A few hundred hostile requests, each over every route: 10–30 s on two busy cores.
  }, 90_000);

  it('where a route takes any JSON (metadata, edited arguments, page output), a value nested too deep is a 400, not a 500', async () => {
    const [approval, , page] = fixtures.ids;
    const actionOf = async (id: string) =>
      (await heed.store!.listActions(id)).find((action) => action.status === 'pending')!.id;
    const cases: Sent[] = [
      { method: 'POST', path: '/api/conversations', body: `{"agent":"support","metadata":{"x":${deep(100_000)}}}` },
      { method: 'POST', path: '/api/conversations', body: `{"agent":"support","metadata":{"x":${deep(3000)}}}` },
      {
        method: 'POST',
        path: `/api/conversations/${approval}/actions/${await actionOf(approval)}`,
        body: `{"resolution":{"type":"approval","decision":"allow","approvedArgs":{"orderId":1,"amount":1,"note":${deep(100_000)}}}}`,
      },
      {
        method: 'POST',
        path: `/api/conversations/${page}/actions/${await actionOf(page)}`,
        body: `{"resolution":{"type":"client_tool","output":{"text":"a","more":${deep(100_000)}}}}`,
        headers: { authorization: 'Bearer adaPage' },
      },
    ];
    for (const sent of cases) {
      const request = { ...sent, headers: { authorization: 'Bearer ada', ...sent.headers } };
      const response = await send(request);
      await check(request, response);
      expect(JSON.parse(response.text).error).toMatchObject({ code: 'invalid_request', details: { maxDepth: 64 } });
    }
    // 64 levels is fine.
    const ok = await send({
      method: 'POST',
      path: '/api/conversations',
      body: `{"agent":"support","metadata":{"x":${deep(62)}}}`,
      headers: { authorization: 'Bearer ada' },
    });
    expect(ok.status).toBe(201);
  });

  it('a "__proto__" key cannot lend edited arguments a value the record then lacks', async () => {
    const [approval] = fixtures.ids;
    const actionId = (await heed.store!.listActions(approval)).find((action) => action.status === 'pending')!.id;
    // {"__proto__":{"orderId":1}} would pass the schema through the prototype, yet be stored without orderId.
    const request: Sent = {
      method: 'POST',
      path: `/api/conversations/${approval}/actions/${actionId}`,
      body: '{"resolution":{"type":"approval","decision":"allow","approvedArgs":{"__proto__":{"orderId":1},"amount":1}}}',
      headers: { authorization: 'Bearer ada' },
    };
    const response = await send(request);
    await check(request, response);
    expect(JSON.parse(response.text).error).toMatchObject({
      code: 'invalid_request',
      details: { field: 'body.resolution.approvedArgs.__proto__' },
    });
    // The same for an answer: the key is refused, not silently dropped (which would have taken every default).
    const [, asked] = fixtures.ids;
    const questionId = (await heed.store!.listActions(asked)).find((action) => action.status === 'pending')!.id;
    const answer: Sent = {
      method: 'POST',
      path: `/api/conversations/${asked}/actions/${questionId}`,
      body: '{"resolution":{"type":"question","answers":{"__proto__":["l"]}}}',
      headers: { authorization: 'Bearer ada' },
    };
    const refused = await send(answer);
    await check(answer, refused);
    expect(refused.status).toBe(400);
  });

  it('each limit, one by one: the first value over it is refused with a sentence, the last one under it is not', async () => {
    const [approval, asked, page] = fixtures.ids;
    const pendingOf = async (id: string) =>
      (await heed.store!.listActions(id)).find((action) => action.status === 'pending')!.id;
    const post = async (path: string, body: unknown, token = 'ada') => {
      const request: Sent = {
        method: 'POST',
        path,
        body: JSON.stringify(body),
        headers: { authorization: `Bearer ${token}` },
      };
      const response = await send(request);
      await check(request, response);
      return {
        status: response.status,
        error:
          response.status >= 400 ? (JSON.parse(response.text).error as { code: string; message: string }) : undefined,
      };
    };
    const idle = fixtures.ids[4];
    expect(await post(`/api/conversations/${idle}/messages`, { content: 'x'.repeat(100_001) })).toMatchObject({
      status: 400,
      error: { code: 'invalid_request' },
    });
    expect(
      (
        await send({
          method: 'GET',
          path: `/api/conversations/${'c'.repeat(201)}`,
          headers: { authorization: 'Bearer ada' },
        })
      ).status,
    ).toBe(400);
    expect(
      (
        await send({
          method: 'GET',
          path: `/api/conversations/${'c'.repeat(200)}`,
          headers: { authorization: 'Bearer ada' },
        })
      ).status,
    ).toBe(404);

    const question = `/api/conversations/${asked}/actions/${await pendingOf(asked)}`;
    const flood = await post(question, {
      resolution: { type: 'question', answers: { size: 'Large', qty: '2', extra: 'x' } },
    });
    expect(flood).toMatchObject({
      status: 400,
      error: {
        code: 'invalid_resolution',
        message: 'answers has 3 entries, but 2 questions were asked; answer each once, by its id, header or text.',
      },
    });

    const approve = `/api/conversations/${approval}/actions/${await pendingOf(approval)}`;
    expect(
      await post(approve, { resolution: { type: 'approval', decision: 'deny', comment: 'c'.repeat(4001) } }),
    ).toMatchObject({
      status: 400,
      error: { code: 'invalid_resolution' },
    });

    const answerPage = `/api/conversations/${page}/actions/${await pendingOf(page)}`;
    const tooBig = await post(
      answerPage,
      { resolution: { type: 'client_tool', output: { text: 'x'.repeat(64 * 1024) } } },
      'adaPage',
    );
    expect(tooBig).toMatchObject({ status: 400, error: { code: 'invalid_client_tool_result' } });
    expect(
      await post(answerPage, { resolution: { type: 'client_tool', error: 'e'.repeat(4001) } }, 'adaPage'),
    ).toMatchObject({ status: 400 });
    // Under every limit, the same answers go through.
    expect(
      (
        await post(
          answerPage,
          { resolution: { type: 'client_tool', output: { text: 'x'.repeat(60 * 1024) } } },
          'adaPage',
        )
      ).status,
    ).toBe(200);
  });

  it('a bearer header cannot smuggle a second header, and a huge one is just an unknown token', async () => {
    for (const authorization of [
      `Bearer ${'a'.repeat(100_000)}`,
      'Bearer ada extra',
      'bearer   ada',
      'Bearer ada,bob',
    ]) {
      const request: Sent = { method: 'GET', path: '/api/conversations', headers: { authorization } };
      const response = await send(request);
      await check(request, response);
      expect(response.status === 200 || response.status === 401).toBe(true);
    }
  });

  it('over a raw socket, CR/LF, NUL and huge heads never reach a route, and the server stays up', async () => {
    const server = await serve({
      config: { agents: [supportAgent(new Map())], store: memoryStore(), sweepIntervalMs: 0, auth: { tokens } },
      port: 0,
      log: () => undefined,
    });
    const { port } = new URL(server.url);
    const raw = (text: string) =>
      new Promise<string>((resolve) => {
        const socket = connect(Number(port), '127.0.0.1', () => socket.end(text));
        let answer = '';
        socket.on('data', (chunk) => (answer += chunk));
        socket.on('close', () => resolve(answer));
        socket.on('error', () => resolve(answer));
      });
    const heads = [
      'GET /api/conversations/a\r\nX-Injected: 1 HTTP/1.1\r\nHost: x\r\n\r\n',
      'GET /api/conversations HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ada\u0000\r\n\r\n',
      'GET /api/conversations HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ada\r\n evil: folded\r\n\r\n',
      `GET /api/conversations HTTP/1.1\r\nHost: x\r\nX-Big: ${'a'.repeat(70_000)}\r\n\r\n`,
      'POST /api/conversations HTTP/1.1\r\nHost: x\r\nContent-Length: 5\r\nContent-Length: 500\r\n\r\n{"a":',
      'POST /api/conversations HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\nContent-Length: 3\r\n\r\nzz\r\n',
    ];
    try {
      for (const head of heads) {
        const answer = await raw(head);
        expect([head.slice(0, 60), /^HTTP\/1\.1 4\d\d /.test(answer)]).toEqual([head.slice(0, 60), true]);
        tally.requests++;
      }
      expect((await fetch(`${server.url}/health`)).status).toBe(200);
    } finally {
      await server.close();
    }
  });
});
