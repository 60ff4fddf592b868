import type { BaseCheckpointSaver, MemorySaver } from '@langchain/langgraph';
import type { HandlerValues } from '../handler-types.js';
import type { ScopedValue } from '../../store/store.js';

/** The part of `@langchain/langgraph` the saver is built from (imported when the first call needs it). */
export interface LangGraphModule {
  MemorySaver: typeof MemorySaver;
}

/**
 * A LangGraph checkpointer that keeps each thread in Heed's store. Before a run, `load` reads the thread's
 * checkpoints and pending writes; every `put` and `putWrites` writes what it added at once, so a pause is
 * on disk before the run returns; `unload` forgets the thread in memory afterwards.
 */
export interface StoreCheckpointSaver extends BaseCheckpointSaver {
  load(threadId: string, values: HandlerValues): Promise<void>;
  unload(threadId: string): void;
}

/** The scope a thread's checkpoints are kept under. */
export const checkpointScope = (threadId: string) => `langgraph:checkpoints:${threadId}`;

/** A checkpoint (`c`) or one pending write (`w`), as stored: bytes as base64. */
type Row =
  | { type: 'c'; namespace: string; id: string; checkpoint: string; metadata: string; parent?: string }
  | { type: 'w'; outer: string; inner: string; taskId: string; channel: string; value: string; taskPath?: string };

const encode = (bytes: Uint8Array) => Buffer.from(bytes).toString('base64');
const decode = (text: string) => new Uint8Array(Buffer.from(text, 'base64'));

/**
 * Built on LangGraph's own in-memory saver, which does the reading (latest checkpoint, history, pending
 * writes in order): this class only fills it from the store and copies each addition back.
 */
export function storeCheckpointSaver(langgraph: LangGraphModule): StoreCheckpointSaver {
  class Saver extends langgraph.MemorySaver implements StoreCheckpointSaver {
    readonly #stores = new Map<string, HandlerValues>();

    async load(threadId: string, values: HandlerValues): Promise<void> {
      this.unload(threadId);
      this.#stores.set(threadId, values);
      for (const { value } of await values.listValues(checkpointScope(threadId))) {
        const row = JSON.parse(value) as Row;
        if (row.type === 'c') {
          const thread = (this.storage[threadId] ??= Object.create(null) as (typeof this.storage)[string]);
          const namespace = (thread[row.namespace] ??= Object.create(null) as (typeof thread)[string]);
          namespace[row.id] = [decode(row.checkpoint), decode(row.metadata), row.parent];
        } else {
          const writes = (this.writes[row.outer] ??= Object.create(null) as (typeof this.writes)[string]);
          writes[row.inner] = [row.taskId, row.channel, decode(row.value), row.taskPath];
        }
      }
    }

    unload(threadId: string): void {
      this.#stores.delete(threadId);
      delete this.storage[threadId];
      for (const key of Object.keys(this.writes)) {
        if ((JSON.parse(key) as unknown[])[0] === threadId) delete this.writes[key];
      }
    }

    override async put(...args: Parameters<MemorySaver['put']>) {
      const next = await super.put(...args);
      const {
        thread_id: threadId,
        checkpoint_ns: namespace,
        checkpoint_id: id,
      } = next.configurable as Record<string, string>;
      const [checkpoint, metadata, parent] = this.storage[threadId][namespace][id];
      const row: Row = {
        type: 'c',
        namespace,
        id,
        checkpoint: encode(checkpoint),
        metadata: encode(metadata),
        ...(parent !== undefined ? { parent } : {}),
      };
      await this.#write(threadId, [{ key: JSON.stringify(['c', namespace, id]), row }]);
      return next;
    }

    override async putWrites(...args: Parameters<MemorySaver['putWrites']>) {
      await super.putWrites(...args);
      const [config, , taskId] = args;
      const {
        thread_id: threadId,
        checkpoint_ns: namespace,
        checkpoint_id: id,
      } = (config.configurable ?? {}) as Record<string, string | undefined>;
      // The in-memory saver's own key for the writes of one checkpoint (module-private there, so rebuilt here).
      const outer = JSON.stringify([threadId, namespace, id]);
      const rows = Object.entries(this.writes[outer] ?? {})
        .filter(([, record]) => record[0] === taskId)
        .map(([inner, [task, channel, value, taskPath]]) => ({
          key: JSON.stringify(['w', outer, inner]),
          row: {
            type: 'w',
            outer,
            inner,
            taskId: task,
            channel,
            value: encode(value),
            ...(taskPath !== undefined ? { taskPath } : {}),
          } satisfies Row,
        }));
      await this.#write(threadId as string, rows);
    }

    override async deleteThread(threadId: string): Promise<void> {
      await super.deleteThread(threadId);
      await this.#stores.get(threadId)?.deleteValues(checkpointScope(threadId));
    }

    async #write(threadId: string, rows: Array<{ key: string; row: Row }>): Promise<void> {
      const store = this.#stores.get(threadId);
      // A thread that was not loaded through Heed (the graph run directly) stays in memory only.
      if (!store || rows.length === 0) return;
      const values: ScopedValue[] = rows.map(({ key, row }) => ({
        scope: checkpointScope(threadId),
        key,
        value: JSON.stringify(row),
      }));
      await store.putValues(values);
    }
  }
  return new Saver();
}
