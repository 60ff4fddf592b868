import { mkdtempSync, rmSync } from 'node:fs';
import { createServer, type IncomingHttpHeaders } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { refundAgent } from '../../test/kit.js';
import { webhookReceiver } from '../../test/notify/receivers.js';
import { createHeed, engineOf, type Heed } from '../heed.js';
import { createApp } from '../http/app.js';
import { sqliteStore } from '../store/sqlite/sqlite-store.js';

/**
 * Traces end to end: two Heed instances on one SQLite file send their spans to a real OTLP/HTTP receiver
 * on loopback (JSON). A message that carries a `traceparent` pauses on instance A; an hour later (by the
 * engines' clocks) the answer comes to instance B, and its span continues the same trace, linked to the
 * pause's span; the webhook announcing the pause carries a `traceparent` of that trace too.
 */
const secret = `whsec_${Buffer.from('a test secret of thirty-two bytes!').toString('base64')}`;
const dir = mkdtempSync(join(tmpdir(), 'heed-traces-'));
const cleanup: Array<() => Promise<void>> = [];
afterAll(async () => {
  for (const step of cleanup.reverse()) await step();
  rmSync(dir, { recursive: true, force: true });
});

interface OtlpValue {
  stringValue?: string;
  intValue?: string | number;
  boolValue?: boolean;
  arrayValue?: { values: OtlpValue[] };
}
interface Span {
  name: string;
  traceId: string;
  spanId: string;
  parentSpanId?: string;
  attributes: Record<string, unknown>;
  links: Array<{ traceId: string; spanId: string }>;
  service: unknown;
}

/** A collector's OTLP/HTTP endpoint: keeps every span posted to /v1/traces as JSON. */
async function otlpReceiver() {
  const spans: Span[] = [];
  const posts: Array<{ path: string; headers: IncomingHttpHeaders }> = [];
  const value = (entry: OtlpValue): unknown =>
    entry.arrayValue
      ? entry.arrayValue.values.map(value)
      : (entry.stringValue ?? (entry.intValue !== undefined ? Number(entry.intValue) : entry.boolValue));
  const attributes = (list: Array<{ key: string; value: OtlpValue }> = []) =>
    Object.fromEntries(list.map((entry) => [entry.key, value(entry.value)]));
  const server = createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      posts.push({ path: request.url ?? '', headers: request.headers });
      const body = JSON.parse(Buffer.concat(chunks).toString('utf8')) as {
        resourceSpans: Array<{
          resource: { attributes: Array<{ key: string; value: OtlpValue }> };
          scopeSpans: Array<{ spans: Array<Omit<Span, 'attributes' | 'service'> & { attributes?: [] }> }>;
        }>;
      };
      for (const resource of body.resourceSpans) {
        const service = attributes(resource.resource.attributes)['service.name'];
        for (const scope of resource.scopeSpans)
          for (const span of scope.spans)
            spans.push({
              ...span,
              parentSpanId: span.parentSpanId || undefined,
              attributes: attributes(span.attributes),
              links: span.links ?? [],
              service,
            });
      }
      response.writeHead(200, { 'content-type': 'application/json' }).end('{}');
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  cleanup.push(() => new Promise<void>((resolve) => (server.closeAllConnections(), server.close(() => resolve()))));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1/traces`, spans, posts };
}

describe('traces (telemetry)', () => {
  it('a pause and its answer an hour later on another instance are one trace, continuing the caller’s', async () => {
    const collector = await otlpReceiver();
    const hook = await webhookReceiver();
    cleanup.push(hook.close);
    const path = join(dir, 'heed.db');
    let now = Date.parse('2026-03-01T09:00:00.000Z');
    const instance = (offsetMs: number): Heed => {
      const heed = createHeed({
        agents: [refundAgent().agent],
        store: sqliteStore({ path }),
        sweepIntervalMs: 0,
        now: () => new Date(now + offsetMs),
        notify: { webhooks: [{ url: hook.url, secret, events: ['action.required'] }], pollIntervalMs: 20 },
        telemetry: { otlpUrl: collector.url, serviceName: 'heed-test' },
      });
      cleanup.push(() => heed.close());
      return heed;
    };
    const a = instance(0);
    const b = instance(0);
    await Promise.all([a.ready(), b.ready()]);
    const auth = { authorization: 'Bearer t', 'content-type': 'application/json' };
    const appA = createApp(a, { auth: { tokens: { t: { userId: 'ada' } } } });
    const appB = createApp(b, { auth: { tokens: { t: { userId: 'ada' } } } });

    const callerTrace = '4bf92f3577b34da6a3ce929d0e0e4736';
    const callerSpan = '00f067aa0ba902b7';
    const created = await appA.request('/api/conversations', {
      method: 'POST',
      headers: auth,
      body: JSON.stringify({ agent: 'support' }),
    });
    const { id } = (await created.json()) as { id: string };
    const sent = await appA.request(`/api/conversations/${id}/messages`, {
      method: 'POST',
      headers: { ...auth, traceparent: `00-${callerTrace}-${callerSpan}-01` },
      body: JSON.stringify({ content: 'Refund order 42' }),
    });
    const paused = (await sent.json()) as { status: string; pendingActions: Array<{ id: string }> };
    expect(paused.status).toBe('requires_action');
    const actionId = paused.pendingActions[0].id;
    await hook.until((calls) => calls.length === 1);
    // Sent and recorded as sent before the clocks move on (else its claim would lapse and it would go again).
    await expect
      .poll(async () => (await engineOf(a).store.listDeliveries({})).map((delivery) => delivery.status))
      .toEqual(['delivered']);

    // An hour later, on the other instance, with no traceparent of the answerer's own.
    now += 3_600_000;
    const answered = await appB.request(`/api/conversations/${id}/actions/${actionId}`, {
      method: 'POST',
      headers: auth,
      body: JSON.stringify({ resolution: { type: 'approval', decision: 'allow' } }),
    });
    expect(answered.status).toBe(200);
    expect(((await answered.json()) as { status: string }).status).toBe('completed');
    // Closing sends what each instance still buffers.
    await a.close();
    await b.close();

    expect(collector.posts.length).toBeGreaterThan(0);
    for (const post of collector.posts) {
      expect(post.path).toBe('/v1/traces');
      expect(post.headers['content-type']).toBe('application/json');
    }
    const spans = collector.spans;
    const one = (name: string, where: (span: Span) => boolean = () => true) => {
      const found = spans.filter((span) => span.name === name && where(span));
      expect(found, name).toHaveLength(1);
      return found[0];
    };
    expect(new Set(spans.map((span) => span.service))).toEqual(new Set(['heed-test']));
    // Every span of the conversation is in the caller's trace.
    expect(new Set(spans.map((span) => span.traceId))).toEqual(new Set([callerTrace]));

    const firstTurn = one('heed.turn', (span) => span.attributes['heed.trigger'] === 'message');
    expect(firstTurn).toMatchObject({
      parentSpanId: callerSpan,
      attributes: { 'heed.agent': 'support', 'heed.conversation_id': id, 'heed.turn.status': 'requires_action' },
    });
    const models = spans.filter((span) => span.name === 'heed.model');
    expect(models).toHaveLength(2);
    expect(models.filter((span) => span.parentSpanId === firstTurn.spanId)).toHaveLength(1);
    const pause = one('heed.pause');
    expect(pause).toMatchObject({ parentSpanId: firstTurn.spanId, attributes: { 'heed.action_ids': [actionId] } });

    const settle = one('heed.settle');
    expect(settle).toMatchObject({
      parentSpanId: pause.spanId,
      links: [expect.objectContaining({ traceId: callerTrace, spanId: pause.spanId })],
      attributes: {
        'heed.action.kind': 'approval',
        'heed.decision': 'allow',
        'heed.surface': 'api',
        'heed.wait_ms': 3_600_000,
        'heed.action_id': actionId,
      },
    });
    const secondTurn = one('heed.turn', (span) => span.attributes['heed.trigger'] === 'answer');
    expect(secondTurn.parentSpanId).toBe(settle.spanId);
    expect(one('heed.tool')).toMatchObject({
      parentSpanId: secondTurn.spanId,
      attributes: { 'heed.tool.name': 'issue_refund' },
    });

    // The webhook that announced the pause: its span hangs under the pause, and the request carries it.
    const delivery = one('heed.delivery');
    expect(delivery).toMatchObject({
      parentSpanId: pause.spanId,
      attributes: { 'heed.delivery.event': 'action.required', 'heed.delivery.target': 'webhook' },
    });
    expect(hook.calls[0].headers.traceparent).toBe(`00-${callerTrace}-${delivery.spanId}-01`);
  });
});

describe('traces through the tracer provider the application registered (telemetry: true)', () => {
  it('an answer carrying its own traceparent is a span of its trace, linked to the pause; a remote agent is sent the turn’s', async () => {
    const api = await import('@opentelemetry/api');
    const sdk = await import('@opentelemetry/sdk-trace-base');
    const exporter = new sdk.InMemorySpanExporter();
    const provider = new sdk.BasicTracerProvider({ spanProcessors: [new sdk.SimpleSpanProcessor(exporter)] });
    api.trace.setGlobalTracerProvider(provider);
    cleanup.push(async () => {
      api.trace.disable();
      await provider.shutdown();
    });
    // A remote agent on loopback that answers at once, keeping the traceparent of each call.
    const traceparents: Array<string | undefined> = [];
    const remote = createServer((request, response) => {
      traceparents.push(request.headers.traceparent as string | undefined);
      request.resume().on('end', () => {
        response.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ content: 'Done.' }));
      });
    });
    await new Promise<void>((resolve) => remote.listen(0, '127.0.0.1', resolve));
    cleanup.push(() => new Promise<void>((resolve) => (remote.closeAllConnections(), remote.close(() => resolve()))));
    const remoteUrl = `http://127.0.0.1:${(remote.address() as AddressInfo).port}/agent`;

    const heed = createHeed({
      agents: [refundAgent().agent, { name: 'elsewhere', remote: { url: remoteUrl, secret } }],
      sweepIntervalMs: 0,
      telemetry: true,
    });
    cleanup.push(() => heed.close());
    await heed.ready();
    const app = createApp(heed, { auth: { tokens: { t: { userId: 'ada' } } } });
    const call = async (path: string, body: unknown, traceparent?: string) => {
      const response = await app.request(path, {
        method: 'POST',
        headers: {
          authorization: 'Bearer t',
          'content-type': 'application/json',
          ...(traceparent ? { traceparent } : {}),
        },
        body: JSON.stringify(body),
      });
      return (await response.json()) as { id: string; status: string; pendingActions: Array<{ id: string }> };
    };
    const pausedTrace = '0af7651916cd43dd8448eb211c80319c';
    const answerTrace = '5b8efff798038103d269b633813fc60c';
    const { id } = await call('/api/conversations', { agent: 'support' });
    const paused = await call(
      `/api/conversations/${id}/messages`,
      { content: 'refund' },
      `00-${pausedTrace}-b7ad6b7169203331-01`,
    );
    const actionId = paused.pendingActions[0].id;
    const answered = await call(
      `/api/conversations/${id}/actions/${actionId}`,
      { resolution: { type: 'approval', decision: 'deny' } },
      `00-${answerTrace}-e457b5a2e4d86bd1-01`,
    );
    expect(answered.status).toBe('completed');

    const spans = exporter.getFinishedSpans();
    const pause = spans.find((span) => span.name === 'heed.pause')!;
    expect(pause.spanContext().traceId).toBe(pausedTrace);
    const settle = spans.find((span) => span.name === 'heed.settle')!;
    expect(settle.spanContext().traceId).toBe(answerTrace);
    expect(settle.parentSpanContext?.spanId).toBe('e457b5a2e4d86bd1');
    expect(settle.links.map((link) => link.context.spanId)).toEqual([pause.spanContext().spanId]);
    expect(settle.attributes).toMatchObject({ 'heed.decision': 'deny', 'heed.action.kind': 'approval' });

    // A remote agent's call carries the span of the turn that makes it.
    const other = await call('/api/conversations', { agent: 'elsewhere' });
    const remoteTrace = 'aaf7651916cd43dd8448eb211c80319d';
    await call(
      `/api/conversations/${other.id}/messages`,
      { content: 'hello' },
      `00-${remoteTrace}-c7ad6b7169203332-01`,
    );
    const turn = exporter
      .getFinishedSpans()
      .find((span) => span.name === 'heed.turn' && span.attributes['heed.conversation_id'] === other.id)!;
    expect(turn.spanContext().traceId).toBe(remoteTrace);
    expect(traceparents).toEqual([`00-${remoteTrace}-${turn.spanContext().spanId}-01`]);
  });
});
