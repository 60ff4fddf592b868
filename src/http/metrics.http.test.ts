import parsePrometheusTextFormat, { type PrometheusFamily } from 'parse-prometheus-text-format';
import { afterEach, describe, expect, it } from 'vitest';
import { startServer, tokens, type TestServer } from '../../test/http-fixtures.js';

/**
 * `GET /metrics` over real HTTP: off unless configured, behind its token, and its numbers, read with a
 * Prometheus text parser, are what the test did: one approval answered after 90 s, one lapsed, one waiting.
 */

const scraper = 'scraper-token-0123456789';

function sample(families: PrometheusFamily[], name: string, labels: Record<string, string>) {
  const family = families.find((entry) => entry.name === name);
  return family?.metrics.find((metric) =>
    Object.entries(labels).every(([key, value]) => metric.labels?.[key] === value),
  );
}

describe('GET /metrics', () => {
  let server: TestServer | undefined;
  afterEach(async () => {
    await server?.close();
    server = undefined;
  });

  it('is not served unless metrics are on', async () => {
    server = await startServer();
    // Without them the path is only one of the console's pages.
    const page = await server.api('GET', '/metrics', { token: 'ada' });
    expect(page.text).not.toContain('heed_pending_actions');
  });

  it('refuses a scrape without its token, and counts what people did and what is waiting', async () => {
    let now = Date.parse('2026-06-01T09:00:00Z');
    server = await startServer({
      metrics: { token: scraper },
      hitl: { timeoutMinutes: 60, remind: { beforeMinutes: [10] } },
      notify: { operators: ['ada'] },
      now: () => new Date(now),
    });
    const api = server.api;
    const open = async () => {
      const created = await api('POST', '/api/conversations', { token: 'ada', body: { agent: 'support' } });
      const id = (created.body as { id: string }).id;
      const sent = await api('POST', `/api/conversations/${id}/messages`, {
        token: 'ada',
        body: { content: 'refund' },
      });
      const action = (sent.body as { pendingActions: { id: string }[] }).pendingActions[0];
      return { id, actionId: action.id };
    };

    const lapsing = await open();
    now += 30 * 60_000;
    const answered = await open();
    now += 90_000;
    const approved = await api('POST', `/api/conversations/${answered.id}/actions/${answered.actionId}`, {
      token: 'ada',
      body: { resolution: { type: 'approval', decision: 'allow' } },
    });
    expect(approved.status).toBe(200);
    now += 20 * 60_000; // ten minutes before the first lapses: its reminder (the answered one had none)
    expect((await server.heed.expireDue()).reminded).toBe(1);
    now += 11 * 60_000; // the first lapses; the third, asked now, waits
    await server.heed.expireDue();
    await open();

    expect((await api('GET', '/metrics')).status).toBe(401);
    expect((await api('GET', '/metrics', { token: 'ada' })).status).toBe(401); // an API token is not the scraper's
    const scraped = await fetch(`${server.url}/metrics`, { headers: { authorization: `Bearer ${scraper}` } });
    expect(scraped.status).toBe(200);
    expect(scraped.headers.get('content-type')).toContain('text/plain');
    const text = await scraped.text();
    const families = parsePrometheusTextFormat(text);

    expect(sample(families, 'heed_pending_actions', { agent: 'support', kind: 'approval' })?.value).toBe('1');
    expect(sample(families, 'heed_actions_lapsed_total', { kind: 'approval' })?.value).toBe('1');
    expect(sample(families, 'heed_reminders_sent_total', { kind: 'approval' })?.value).toBe('1');
    // The parser keeps a labelled histogram's buckets but drops its labels, count and sum: those are read off the lines.
    expect(families.find((family) => family.name === 'heed_decision_seconds')?.type).toBe('HISTOGRAM');
    const lines = text.split('\n');
    expect(lines).toContain('heed_decision_seconds_count{kind="approval",channel="api"} 1');
    expect(lines).toContain('heed_decision_seconds_sum{kind="approval",channel="api"} 90');
    expect(lines).toContain('heed_decision_seconds_bucket{le="60",kind="approval",channel="api"} 0');
    expect(lines).toContain('heed_decision_seconds_bucket{le="300",kind="approval",channel="api"} 1');
    expect(sample(families, 'heed_turns_total', { status: 'paused' })?.value).toBe('3');
    // The approved refund ran and completed; the lapsed one was refused and the model answered too.
    expect(sample(families, 'heed_turns_total', { status: 'completed' })?.value).toBe('2');
    expect(lapsing.id).not.toBe(answered.id);

    // The console's Queue page reads the same figures, for operators only.
    expect((await api('GET', '/api/queue', { token: 'bob' })).status).toBe(403);
    expect((await api('GET', '/api/queue')).status).toBe(403); // anonymous: no operator
    expect((await api('GET', '/api/me', { token: 'bob' })).body).toEqual({ userId: 'bob' });
    expect((await api('GET', '/api/me', { token: 'ada' })).body).toEqual({ userId: 'ada', operator: true });
    const queue = await api('GET', '/api/queue', { token: 'ada' });
    expect(queue.status).toBe(200);
    const figures = {
      pending: 1,
      oldestCreatedAt: new Date(now).toISOString(),
      over1Day: 0,
      over3Days: 0,
      over7Days: 0,
      decisions: 1,
      medianSeconds: 90,
      p90Seconds: 90,
    };
    expect(queue.body).toEqual({ days: 7, ...figures, agents: [{ agent: 'support', ...figures }] });
  });

  it('behind the API sign-in when set to true', async () => {
    server = await startServer({ metrics: true, auth: { tokens, required: true }, notify: { operators: ['ada'] } });
    expect((await server.api('GET', '/metrics')).status).toBe(401);
    const scraped = await server.api('GET', '/metrics', { token: 'ada' });
    expect(scraped.status).toBe(200);
    expect(scraped.text).toContain('# TYPE heed_pending_actions gauge');
  });

  // Issue 38: with `metrics: true` and no sign-in required, anyone could read every agent's traffic.
  it('set to true, only operators read it, as /api/queue: anonymous callers and other people get 403', async () => {
    server = await startServer({ metrics: true, notify: { operators: ['ada'] } });
    const url = `${server.url}/metrics`;
    const anonymous = await fetch(url);
    expect(anonymous.status).toBe(403);
    const refusal = await anonymous.json();
    expect(refusal.error).toMatchObject({ code: 'forbidden' });
    expect(refusal.error.message).toContain('notify.operators');
    expect(JSON.stringify(refusal)).not.toContain('heed_');
    // The same answer as the queue gives the same callers.
    expect((await fetch(`${server.url}/api/queue`)).status).toBe(403);
    const other = await fetch(url, { headers: { authorization: 'Bearer bob' } });
    expect(other.status).toBe(403);
    const operator = await fetch(url, { headers: { authorization: 'Bearer ada' } });
    expect(operator.status).toBe(200);
    expect(await operator.text()).toContain('# TYPE heed_pending_actions gauge');
  });
});
