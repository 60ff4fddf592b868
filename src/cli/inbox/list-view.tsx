import { Box, Text } from 'ink';
import { ageOf, column, fit, kindWord, timeLeftOf } from './format.js';
import { headlineOf } from '../../kinds/index.js';
import { visibleWindow, type InboxEntry } from './inbox-state.js';
import { settledShort } from './outcome.js';
import { Field, Keys, Say } from './theme.js';

export interface ListViewProps {
  entries: InboxEntry[];
  cursor: number;
  agents: ReadonlyMap<string, string>;
  status: 'loading' | 'ready';
  /** The last read failed: shown above the list, which stays as it was. */
  error?: string;
  /** A hint for the last key (A or D with nothing marked). */
  notice?: string;
  /** Rows marked with Space for a batch answer. */
  marked?: ReadonlySet<string>;
  /** Said when the list is empty because no token was given. */
  anonymous: boolean;
  server: string;
  /** How many wait in all (the rows may be filtered); counted from the rows when not given. */
  waiting?: number;
  /** Who the list is of, when the inbox knows (the demo's user). */
  who?: string;
  /** What `/` is filtering by: the text, whether it is being typed, and how many rows it lets through of how many. */
  filter?: { text: string; typing: boolean; shown: number; total: number };
  now: number;
  columns: number;
  rows: number;
}

/** Everything waiting, oldest first, one line each; rows settled meanwhile stay, marked. */
export function ListView(props: ListViewProps) {
  const { entries, cursor, columns, now, filter } = props;
  // Filtered or not, the title counts everything waiting.
  const waiting = props.waiting ?? entries.filter((entry) => !entry.settled).length;
  const filtering = filter !== undefined && (filter.typing || filter.text !== '');
  const { start, end } = visibleWindow(entries.length, cursor, props.rows - (filtering ? 6 : 5));
  const agentWidth = Math.min(14, Math.max(6, Math.floor(columns / 7)));
  const tailWidth = 18;
  const summaryWidth = Math.max(10, columns - 2 - 11 - agentWidth - tailWidth - 1);
  const count = props.status === 'loading' ? 'loading…' : waiting === 1 ? '1 waiting' : `${waiting} waiting`;
  const title = ['Heed inbox', count, props.who, props.server].filter(Boolean).join(' · ');
  return (
    <Box flexDirection="column">
      <Say tone="strong">{fit(title, columns)}</Say>
      {props.error ? <Say tone="bad">{fit(props.error, columns * 2)}</Say> : null}
      {props.notice ? <Say tone="warn">{fit(props.notice, columns * 2)}</Say> : null}
      {filtering ? (
        <Text>
          {'Filter: '}
          {filter.typing ? <Field text={filter.text} focused /> : <Say tone="accent">{`"${filter.text}"`}</Say>}
          <Say tone="dim">
            {fit(
              `  ${filter.shown} of ${filter.total}${filter.typing ? ' · Enter keep · Esc clear' : ' · / change · Esc clear'}`,
              Math.max(0, columns - 12 - filter.text.length),
            )}
          </Say>
        </Text>
      ) : null}
      {props.status === 'ready' && entries.length === 0 && filtering && filter.total > 0 ? (
        <Text wrap="wrap">{`Nothing waiting matches "${filter.text}".`}</Text>
      ) : null}
      {props.status === 'ready' && entries.length === 0 && !(filtering && filter.total > 0) ? (
        <Text wrap="wrap">
          {props.anonymous
            ? 'Nothing waits on an anonymous caller: conversations belong to whoever started them. Pass --token (or HEED_TOKEN) to see yours.'
            : 'Nothing is waiting on you. New requests appear here as they arrive.'}
        </Text>
      ) : null}
      {entries.slice(start, end).map((entry, offset) => {
        const index = start + offset;
        const { action } = entry;
        const here = index === cursor;
        const agent = props.agents.get(action.conversationId) ?? '';
        // The column after the cursor marks a row for A or D (Space); settled rows are never marked.
        const mark = !entry.settled && props.marked?.has(action.id) ? '●' : ' ';
        const head = `${here ? '›' : ' '}${mark}${column(kindWord(action), 10)} ${column(agent, agentWidth)} `;
        if (entry.settled) {
          const mark = `${entry.settled.byMe ? '✓' : '×'} ${settledShort(action, entry.settled)}`;
          return (
            <Text key={action.id}>
              {head}
              <Say tone="dim">{fit(`${mark} — ${headlineOf(action)}`, columns - head.length)}</Say>
            </Text>
          );
        }
        const tail = `${ageOf(action, now)}  ${timeLeftOf(action, now)}`;
        return (
          <Text key={action.id}>
            {head}
            {here ? (
              <Say tone="accent">{column(headlineOf(action), summaryWidth)}</Say>
            ) : (
              column(headlineOf(action), summaryWidth)
            )}{' '}
            <Say tone={action.expiresAt && Date.parse(action.expiresAt) - now < 60_000 ? 'warn' : 'dim'}>
              {fit(tail, tailWidth)}
            </Say>
          </Text>
        );
      })}
      {end < entries.length || start > 0 ? <Say tone="dim">{`${start + 1}–${end} of ${entries.length}`}</Say> : null}
      <Keys>
        {filter?.typing
          ? 'type to filter · ↑↓ move · Enter keep the filter · Esc clear it'
          : props.marked?.size
            ? `Space mark · A approve / D deny ${props.marked.size} marked · Enter open · ? keys · q quit`
            : '↑↓ / j k move · Enter open · / filter · ? keys · q quit'}
      </Keys>
    </Box>
  );
}
