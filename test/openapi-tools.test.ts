/**
 * The served OpenAPI document with the tools people point at it: `redocly lint` (recommended rules)
 * finds nothing, `openapi-typescript` generates a client whose types let the README's curl flow be
 * written with `openapi-fetch` without a single cast, `tsc` accepts that program, and the program runs
 * against a real `heed serve` with the demo agents.
 */
import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import openapiTS, { astToString } from 'openapi-typescript';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { serve, type RunningServer } from '../src/cli/serve.js';

const run = promisify(execFile);
const root = join(import.meta.dirname, '..');
const bin = (name: string) => join(root, 'node_modules', '.bin', name);

/**
 * The README's "Over HTTP" flow as a developer writes it with a generated client: create a
 * conversation, send a message, answer the intake questions, ask for a refund, approve it with edited
 * arguments, see a second answer refused; then the same kind of message as a stream, asked for by
 * calling the stream route. No `as`, no `!`: the types narrow on `kind`, `type` and `error` alone.
 */
const flow = `
import createClient from 'openapi-fetch';
import type { paths } from './heed-api.js';

const client = createClient<paths>({ baseUrl: process.argv[2] });
const seen: Record<string, unknown> = {};

const created = await client.POST('/api/conversations', { body: { agent: 'helpdesk' } });
if (created.error) throw new Error(created.error.error.message);
const id = created.data.id;

const first = await client.POST('/api/conversations/{id}/messages', { params: { path: { id } }, body: { content: 'hi' } });
if (first.error) throw new Error(first.error.error.message);
seen.firstStatus = first.data.status;
const intake = first.data.pendingActions?.find((action) => action.kind === 'question');
if (intake?.kind !== 'question') throw new Error('no intake question');
seen.questions = intake.questions.map((question) => ({
  id: question.id,
  options: question.options?.map((option) => option.label),
  input: question.input?.type,
}));

const answered = await client.POST('/api/conversations/{id}/actions/{actionId}', {
  params: { path: { id, actionId: intake.id } },
  body: { resolution: { type: 'question', answers: { topic: 'Billing and refunds', email: 'ada@example.com' } } },
});
if (answered.error) throw new Error(answered.error.error.message);
seen.answeredStatus = answered.data.status;

const refund = await client.POST('/api/conversations/{id}/messages', {
  params: { path: { id } },
  body: { content: 'refund order 42 for $30' },
});
if (refund.error) throw new Error(refund.error.error.message);
const approval = refund.data.pendingActions?.find((action) => action.kind === 'approval');
if (approval?.kind !== 'approval') throw new Error('no approval');
seen.approval = { title: approval.title, args: approval.args, canRemember: approval.canRemember };

const approved = await client.POST('/api/conversations/{id}/actions/{actionId}', {
  params: { path: { id, actionId: approval.id } },
  body: { resolution: { type: 'approval', decision: 'allow', approvedArgs: { orderId: 42, amount: 20 } } },
});
if (approved.error) throw new Error(approved.error.error.message);
seen.approvedStatus = approved.data.status;
const part = approved.data.messages.at(-1)?.parts[0];
seen.reply = part?.type === 'text' ? part.text : undefined;

const again = await client.POST('/api/conversations/{id}/actions/{actionId}', {
  params: { path: { id, actionId: approval.id } },
  body: { resolution: { type: 'approval', decision: 'deny' } },
});
seen.again = { status: again.response.status, code: again.error?.error.code };

const events = await client.GET('/api/conversations/{id}/events', { params: { path: { id }, query: { limit: 500 } } });
if (events.error) throw new Error(events.error.error.message);
seen.resolved = events.data.events.flatMap((event) =>
  event.type === 'action.resolved' ? [{ kind: event.data.kind, channel: event.data.channel, editedArgs: event.data.editedArgs }] : [],
);

// The stream is its own route; the client asks to read the body as a stream.
const streamed = await client.POST('/api/conversations/{id}/messages/stream', {
  params: { path: { id } },
  body: { content: 'thanks' },
  parseAs: 'stream',
});
if (streamed.error) throw new Error(streamed.error.error.message);
seen.streamType = streamed.response.headers.get('content-type');
seen.streamText = streamed.data ? await new Response(streamed.data).text() : '';

console.log(JSON.stringify(seen));
`;

let server: RunningServer;
let dir: string;

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'heed-openapi-'));
  // The program resolves openapi-fetch (and tsx runs it) from the repository's installed packages.
  symlinkSync(join(root, 'node_modules'), join(dir, 'node_modules'), 'dir');
  server = await serve({
    db: join(dir, 'heed.db'),
    port: 0,
    host: '127.0.0.1',
    console: false,
    env: { HEED_DEMO_DELAY_MS: '0' },
    log: () => undefined,
  });
  const document = await (await fetch(`${server.url}/api/openapi.json`)).text();
  writeFileSync(join(dir, 'openapi.json'), document);
});

afterAll(async () => {
  await server?.close();
  if (dir) rmSync(dir, { recursive: true, force: true });
});

describe('the OpenAPI document with third-party tools', () => {
  it('passes redocly lint with the recommended rules: no errors, no warnings', async () => {
    const linted = await run(
      bin('redocly'),
      ['lint', '--extends', 'recommended', '--format', 'json', join(dir, 'openapi.json')],
      {
        cwd: dir,
        env: { ...process.env, REDOCLY_TELEMETRY: 'off', REDOCLY_SUPPRESS_UPDATE_NOTICE: 'true' },
      },
    ).catch((failed: { stdout: string }) => failed);
    const report = JSON.parse(linted.stdout) as {
      totals: { errors: number; warnings: number };
      problems: Array<{ ruleId: string; message: string }>;
    };
    expect(report.problems.map((problem) => `${problem.ruleId}: ${problem.message}`)).toEqual([]);
    expect(report.totals).toMatchObject({ errors: 0, warnings: 0 });
  });

  it('generates a client with openapi-typescript in which the README flow compiles without casts, and runs against heed serve', async () => {
    const types = astToString(await openapiTS(new URL(`file://${join(dir, 'openapi.json')}`)));
    writeFileSync(join(dir, 'heed-api.ts'), types);
    writeFileSync(join(dir, 'flow.ts'), flow);
    writeFileSync(
      join(dir, 'tsconfig.json'),
      JSON.stringify({
        compilerOptions: {
          target: 'ES2022',
          module: 'NodeNext',
          moduleResolution: 'NodeNext',
          strict: true,
          noEmit: true,
          skipLibCheck: true,
          lib: ['ES2022', 'DOM'],
          types: ['node'],
        },
        files: ['flow.ts', 'heed-api.ts'],
      }),
    );
    // A package.json saying "module" lets the program use top-level await.
    writeFileSync(join(dir, 'package.json'), JSON.stringify({ type: 'module' }));
    const compiled = await run(bin('tsc'), ['-p', join(dir, 'tsconfig.json')], { cwd: dir }).catch(
      (failed: { stdout: string }) => failed,
    );
    expect(compiled.stdout).toBe('');
    expect(flow).not.toMatch(/\bas\b [A-Z{]|!\./);

    const ran = await run(process.execPath, ['--import', 'tsx', join(dir, 'flow.ts'), server.url], { cwd: dir });
    const seen = JSON.parse(ran.stdout) as Record<string, unknown>;
    expect(seen).toMatchObject({
      firstStatus: 'requires_action',
      questions: [
        { id: 'topic', options: ['Billing and refunds', 'Something is broken', 'My account'] },
        { id: 'email', input: 'email' },
      ],
      answeredStatus: 'completed',
      approval: { title: 'Refund $30 on order 42?', args: { orderId: 42, amount: 30 } },
      approvedStatus: 'completed',
      again: { status: 409, code: 'action_not_pending' },
      resolved: [
        { kind: 'question', channel: 'api' },
        { kind: 'approval', channel: 'api', editedArgs: true },
      ],
    });
    expect(seen.reply).toMatch(/\$20 refunded on order 42/);
    expect(seen.streamType).toMatch(/^text\/event-stream/);
    expect(seen.streamText).toMatch(/event: message\.created/);
    expect(seen.streamText).toMatch(/event: turn\.done\ndata: \{"status":"completed"/);
  }, 60_000);
});
