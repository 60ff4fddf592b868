import { storeUnavailable } from '../../store/unavailable.js';
import type { HeedHooks } from '../../hooks.js';
import { defineRoute } from '../route.js';
import { healthResponse } from '../schemas.js';

/** How long the store has to answer the readiness read before the instance is reported not ready. */
export const READY_WITHIN_MS = 2000;

// Any id does: the read goes to the database whether the conversation exists or not.
const PROBE_ID = 'heed-readiness-probe';

/**
 * `GET /health/ready`: 200 only when the store answers a read within 2 s, else 503 `store_unavailable`.
 * A load balancer sends traffic to the instances that can serve it; `/health` says only that the process runs.
 */
export const readyRoute = defineRoute(
  {
    method: 'get',
    path: '/health/ready',
    operationId: 'ready',
    summary: 'Readiness: the store answers',
    description: `200 when the store answered a read within ${READY_WITHIN_MS / 1000} s; 503 \`store_unavailable\` otherwise.`,
    tag: 'meta',
    responses: { 200: { description: 'The store answered in time.', schema: healthResponse } },
    errors: ['store_unavailable'],
  },
  async ({ host }) => {
    await readWithin(host.store, READY_WITHIN_MS);
    return Response.json({ ok: true });
  },
);

async function readWithin(store: Pick<HeedHooks['store'], 'getConversation'>, ms: number): Promise<void> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const late = new Promise<never>((_, reject) => {
    timer = setTimeout(
      () => reject(storeUnavailable(new Error(`the store did not answer a read within ${ms} ms`))),
      ms,
    );
  });
  // A read still under way past the deadline is left to end on its own (its pool's own timeout ends it).
  const read = store.getConversation(PROBE_ID).then(() => undefined);
  read.catch(() => undefined);
  try {
    await Promise.race([read, late]);
  } finally {
    clearTimeout(timer);
  }
}
