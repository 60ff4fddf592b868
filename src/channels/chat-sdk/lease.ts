import { randomUUID } from 'node:crypto';
import type { Store } from '../../store/store.js';

/** What the store keeps under a lease's scope: who holds it, and until when (ms since the epoch). */
interface LeaseRecord {
  holder: string;
  until: number;
}

/**
 * A lease in Heed's store, so that of several instances on one store only one does something at a time
 * (holds Discord's Gateway socket). Taken when there is none or the last one lapsed, renewed by its
 * holder, each write a compare-and-set of one value (`Store.swapValue`): two instances never both win.
 * Times are each instance's own clock: clocks apart by more than the lease can let two hold it at once.
 */
export class Lease {
  /** This instance, as the stored lease names it. */
  readonly holder = randomUUID();

  constructor(
    private readonly store: Pick<Store, 'listValues' | 'swapValue'>,
    private readonly scope: string,
    readonly leaseMs: number,
    private readonly now: () => number = Date.now,
  ) {}

  private async read(): Promise<{ raw: string | null; record?: LeaseRecord }> {
    const row = (await this.store.listValues(this.scope)).find((entry) => entry.key === '');
    return row ? { raw: row.value, record: JSON.parse(row.value) as LeaseRecord } : { raw: null };
  }

  /**
   * Takes the lease, or renews it when this instance holds it: resolves with when it lapses, or
   * undefined when another instance holds it (or took it between the read and the write).
   */
  async hold(): Promise<number | undefined> {
    const { raw, record } = await this.read();
    const now = this.now();
    if (record && record.holder !== this.holder && record.until > now) return undefined;
    const until = now + this.leaseMs;
    const next = JSON.stringify({ holder: this.holder, until } satisfies LeaseRecord);
    return (await this.store.swapValue(this.scope, '', raw, next)) ? until : undefined;
  }

  /** Gives the lease up, if this instance holds it, so another can take it at once. */
  async release(): Promise<void> {
    const { raw, record } = await this.read();
    if (record?.holder === this.holder) await this.store.swapValue(this.scope, '', raw, null);
  }
}
