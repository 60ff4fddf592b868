import { Box, Text } from 'ink';
import type { ReactNode } from 'react';
import type { ActionView } from '../../client/index.js';
import { detailLinesOf, type DetailLine } from '../../kinds/index.js';
import { ageOf, fit, kindWord, timeLeftOf } from './format.js';
import { Say } from './theme.js';

/** The terminal is wide enough for the list and the selected request side by side. */
export const WIDE_COLUMNS = 120;

/** The columns the list keeps when the detail pane is shown beside it. */
export function listColumns(columns: number): number {
  return Math.max(60, Math.floor(columns * 0.5));
}

/** The lines that describe a request: what it asks, in full (its kind's `detailLines`), one per screen line. */
export function detailLines(action: ActionView): DetailLine[] {
  return detailLinesOf(action).flatMap(({ text, tone }) => text.split('\n').map((line) => ({ text: line, tone })));
}

/** The pane's frame: a rule on its left, beside the list. */
function Pane({ width, children }: { width: number; children: ReactNode }) {
  return (
    <Box
      width={width}
      borderStyle="single"
      borderTop={false}
      borderRight={false}
      borderBottom={false}
      paddingLeft={1}
      flexDirection="column"
    >
      {children}
    </Box>
  );
}

/** The selected request beside the list, on a wide terminal: read it before opening it. */
export function DetailPane({
  action,
  agent,
  width,
  height,
  now,
}: {
  action?: ActionView;
  agent?: string;
  width: number;
  height: number;
  now: number;
}) {
  const inner = Math.max(10, width - 2);
  if (!action) {
    return (
      <Pane width={width}>
        <Say tone="dim">Nothing selected.</Say>
      </Pane>
    );
  }
  const header = [kindWord(action), agent, action.toolName, `asked ${ageOf(action, now)}`, timeLeftOf(action, now)]
    .filter(Boolean)
    .join(' · ');
  const lines = detailLines(action);
  const room = Math.max(3, height - 3);
  const shown =
    lines.length > room
      ? [
          ...lines.slice(0, room - 1),
          { text: `… ${lines.length - room + 1} more lines (Enter opens it)`, tone: 'dim' as const },
        ]
      : lines;
  return (
    <Pane width={width}>
      <Say tone="accent">{fit(header, inner)}</Say>
      {shown.map((line, index) =>
        line.tone ? (
          <Say key={index} tone={line.tone}>
            {fit(line.text, inner)}
          </Say>
        ) : (
          <Text key={index}>{fit(line.text, inner)}</Text>
        ),
      )}
    </Pane>
  );
}
