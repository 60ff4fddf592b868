import { Box } from 'ink';
import type { ActionView } from '../../client/index.js';
import { ageOf, fit, kindWord, timeLeftOf } from './format.js';
import { Say } from './theme.js';

/** The first line of every request view: kind, agent, tool, age and time left. */
export function RequestHeader({
  action,
  agent,
  now,
  columns,
}: {
  action: ActionView;
  agent?: string;
  now: number;
  columns: number;
}) {
  const parts = [
    kindWord(action),
    agent ?? action.conversationId,
    action.toolName,
    `asked ${ageOf(action, now)}`,
    timeLeftOf(action, now),
  ].filter(Boolean);
  return (
    <Box>
      <Say tone="accent">{fit(parts.join(' · '), columns)}</Say>
    </Box>
  );
}
