import { createHash, timingSafeEqual } from 'node:crypto';
import type { Context } from 'hono';
import type { Counter, Gauge, Histogram, Registry } from 'prom-client';
import type { AuthConfig } from '../config.js';
import { HeedError } from '../errors.js';
import type { HeedHooks } from '../hooks.js';
import { requireOptional } from '../optional-dependency.js';
import type { PendingCount } from '../store/store.js';
import { byPerson } from '../store/values.js';
import type { EventRecord } from '../types.js';
import { callerResolver } from './auth.js';
import type { SignIn } from './sign-in/sign-in.js';
import { mustHaveScope, type PersonalTokens } from './sign-in/tokens.js';
import { peerAddress } from './trusted-header.js';
import { errorResponse } from './errors.js';
import { mustBeOperator } from './operators.js';
import type { AppEnv } from './route.js';

/**
 * `GET /metrics` in Prometheus' text format (docs/metrics.md). Counters and the time-to-decision histogram
 * count what this process commits (sum them across instances); the pending gauges are read from the store,
 * so every instance reports the same figures for them.
 */

/** `true`: the API's own sign-in, operators only (`notify.operators`); `{ token }`: only that bearer token (a scraper's own). */
export type MetricsConfig = boolean | { token: string };

/** How long one read of the store serves the pending gauges: a scraper that calls in a loop costs one query per this. */
const PENDING_CACHE_MS = 5_000;

/** From seconds to weeks: people answer in minutes or days, not milliseconds. */
const DECISION_BUCKETS = [1, 5, 15, 30, 60, 300, 900, 1800, 3600, 4 * 3600, 12 * 3600, 86_400, 3 * 86_400, 7 * 86_400];

interface Meters {
  registry: Registry;
  decisions: Histogram<'kind' | 'channel'>;
  lapses: Counter<'kind'>;
  reminders: Counter<'kind'>;
  turns: Counter<'status'>;
  deliveriesFailed: Counter<'target'>;
}

type PromClient = typeof import('prom-client');

/** Builds the meters and starts counting this process's commits; the handler serves `GET /metrics`. */
export function metricsHandler(
  host: HeedHooks,
  config: MetricsConfig,
  auth: AuthConfig | undefined,
  signIn?: SignIn,
  personal?: PersonalTokens,
): (c: Context<AppEnv>) => Promise<Response> {
  // Loaded only when metrics are on; missing, the app is not made (missing_dependency with the npm i line).
  const prom = requireOptional<PromClient>('prom-client', 'metrics: true');
  const meters = makeMeters(prom, host);
  host.onCommitted((events) => count(host, meters, events));
  const allowed = gate(config, auth, host, signIn, personal);
  return async (c) => {
    try {
      await allowed(c.req.raw, peerAddress(c.env));
    } catch (error) {
      return errorResponse(error);
    }
    return new Response(await meters.registry.metrics(), {
      headers: { 'content-type': meters.registry.contentType, 'cache-control': 'no-store' },
    });
  };
}

function makeMeters(prom: PromClient, host: HeedHooks): Meters {
  const registry = new prom.Registry();
  const registers = [registry];
  let pending: { at: number; counts: Promise<PendingCount[]> } | undefined;
  const readPending = () => {
    const now = Date.now();
    if (!pending || now - pending.at > PENDING_CACHE_MS)
      pending = { at: now, counts: host.store.countPending(host.now()) };
    return pending.counts;
  };
  // Both gauges are read from one grouped query of the store (cached), each its own figure of a row.
  const pendingGauge = (name: string, help: string, figure: (row: PendingCount, now: number) => number) =>
    new prom.Gauge({
      name,
      help,
      labelNames: ['agent', 'kind'],
      registers,
      async collect(this: Gauge<'agent' | 'kind'>) {
        this.reset();
        const now = Date.parse(host.now());
        for (const row of await readPending()) this.set({ agent: row.agent, kind: row.kind }, figure(row, now));
      },
    });
  pendingGauge('heed_pending_actions', 'Actions waiting for a person, by agent and kind.', (row) => row.count);
  pendingGauge(
    'heed_oldest_pending_seconds',
    'How long the oldest waiting action has waited, by agent and kind.',
    (row, now) => (now - Date.parse(row.oldestCreatedAt)) / 1000,
  );
  return {
    registry,
    decisions: new prom.Histogram({
      name: 'heed_decision_seconds',
      help: 'Time from a request to the answer a person gave, by kind and the channel of the answer.',
      labelNames: ['kind', 'channel'],
      buckets: DECISION_BUCKETS,
      registers,
    }),
    lapses: new prom.Counter({
      name: 'heed_actions_lapsed_total',
      help: 'Actions nobody answered in time, by kind.',
      labelNames: ['kind'],
      registers,
    }),
    reminders: new prom.Counter({
      name: 'heed_reminders_sent_total',
      help: 'Reminders sent before a request lapsed (hitl.remind), by kind; one per reminder, whatever it was sent to.',
      labelNames: ['kind'],
      registers,
    }),
    turns: new prom.Counter({
      name: 'heed_turns_total',
      help: 'Turns that ended, by how: completed, paused, failed or cancelled.',
      labelNames: ['status'],
      registers,
    }),
    deliveriesFailed: new prom.Counter({
      name: 'heed_deliveries_failed_total',
      help: 'Notifications (webhooks, mail, channel posts) given up after their last try, by target.',
      labelNames: ['target'],
      registers,
    }),
  };
}

const turnEnds: Partial<Record<EventRecord['type'], string>> = {
  'turn.completed': 'completed',
  'turn.paused': 'paused',
  'turn.failed': 'failed',
  'turn.cancelled': 'cancelled',
};

function count(host: HeedHooks, meters: Meters, events: EventRecord[]): void {
  for (const event of events) {
    const ended = turnEnds[event.type];
    if (ended) meters.turns.inc({ status: ended });
    if (event.type === 'delivery.failed') meters.deliveriesFailed.inc({ target: event.data.target });
    if (event.type === 'action.reminded') meters.reminders.inc({ kind: event.data.kind });
    if (event.type !== 'action.resolved') continue;
    if (event.data.expired) meters.lapses.inc({ kind: event.data.kind });
    else if (event.data.actionId && !event.data.cancelled && event.data.channel && byPerson(event.data.channel)) {
      const { kind, channel } = event.data;
      // The request's time is on the stored action, not in the event.
      void host.store
        .getAction(event.conversationId, event.data.actionId)
        .then((action) => {
          if (!action?.resolvedAt) return;
          const seconds = (Date.parse(action.resolvedAt) - Date.parse(action.createdAt)) / 1000;
          meters.decisions.observe({ kind, channel }, Math.max(0, seconds));
        })
        .catch((error: unknown) => host.logger.warn({ error: String(error) }, 'Heed: a decision was not counted'));
    }
  }
}

const digest = (text: string) => createHash('sha256').update(text).digest();

/** Refuses a scrape that is not signed in as the API asks (`true`) or does not carry the metrics token. */
function gate(
  config: MetricsConfig,
  auth: AuthConfig | undefined,
  host: HeedHooks,
  signIn: SignIn | undefined,
  personal: PersonalTokens | undefined,
): (request: Request, peer: string | undefined) => Promise<void> {
  if (config === true || config === false) {
    // The API's sign-in, and then the operators only, as for the queue: the figures cover every conversation.
    const resolve = callerResolver(auth, signIn, personal);
    const rule = { operators: host.notifier.config.operators, admins: auth?.admins };
    return async (request, peer) => {
      const caller = await resolve(request, peer);
      mustHaveScope(caller, 'admin');
      mustBeOperator(caller, rule, 'read the metrics');
    };
  }
  const expected = digest(config.token);
  return async (request) => {
    const match = /^Bearer\s+(\S+)\s*$/i.exec(request.headers.get('authorization') ?? '');
    // Digests of equal length: the comparison takes the same time whatever the token shares with the real one.
    if (!match || !timingSafeEqual(digest(match[1]), expected)) {
      throw new HeedError('unauthorized', 'The metrics token is missing or not recognised.');
    }
  };
}
