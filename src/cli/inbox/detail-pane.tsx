import { Box, Text } from 'ink';
import type { ActionView } from '../../client/index.js';
import { summaryOf as kindSummary, titleOf } from '../../kinds/index.js';
import { votesSummary } from '../../react/state/votes.js';
import { ageOf, fit, hostOf, kindWord, timeLeftOf } from './format.js';
import { Say } from './theme.js';

/** The terminal is wide enough for the list and the selected request side by side. */
export const WIDE_COLUMNS = 120;

/** The columns the list keeps when the detail pane is shown beside it. */
export function listColumns(columns: number): number {
  return Math.max(60, Math.floor(columns * 0.5));
}

/** The lines that describe a request: what it asks, in full, as far as `height` allows. */
export function detailLines(action: ActionView): Array<{ text: string; tone?: 'strong' | 'dim' }> {
  const lines: Array<{ text: string; tone?: 'strong' | 'dim' }> = [];
  const add = (text: string, tone?: 'strong' | 'dim') => {
    for (const line of text.split('\n')) lines.push({ text: line, tone });
  };
  switch (action.kind) {
    case 'approval': {
      add(action.title || `Run ${action.toolName}?`, 'strong');
      if (action.summary) add(action.summary);
      const votes = votesSummary(action);
      if (votes) add(votes, 'dim');
      add(`Arguments of ${action.toolName}:`, 'dim');
      add(JSON.stringify(action.args, null, 2) ?? 'undefined');
      break;
    }
    case 'question': {
      if (action.preamble) add(action.preamble);
      for (const [index, question] of (action.questions ?? []).entries()) {
        add(`${index + 1}. ${question.header} — ${question.prompt}`, 'strong');
        const defaults = new Set(question.defaults ?? []);
        for (const option of question.options ?? [])
          add(`   ${defaults.has(option.value) ? '(•)' : '( )'} ${option.label}`);
        if (question.input)
          add(`   ${question.input.type}${defaults.size ? `, pre-filled ${[...defaults].join(', ')}` : ''}`, 'dim');
      }
      break;
    }
    case 'url':
      add(action.title ?? 'The agent asks you to open a page', 'strong');
      if (action.message) add(action.message);
      add(`Host: ${hostOf(action.url ?? '')}`);
      add(action.url ?? '');
      break;
    case 'client_tool':
      add(`${action.toolName} runs in the page`, 'strong');
      add(JSON.stringify(action.args, null, 2) ?? 'undefined');
      break;
    default:
      add(titleOf(action), 'strong');
      add(kindSummary(action));
  }
  return lines;
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
      <Box
        width={width}
        borderStyle="single"
        borderTop={false}
        borderRight={false}
        borderBottom={false}
        paddingLeft={1}
        flexDirection="column"
      >
        <Say tone="dim">Nothing selected.</Say>
      </Box>
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
    <Box
      width={width}
      borderStyle="single"
      borderTop={false}
      borderRight={false}
      borderBottom={false}
      paddingLeft={1}
      flexDirection="column"
    >
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
    </Box>
  );
}
