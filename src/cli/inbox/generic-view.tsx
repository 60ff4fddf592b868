import { Box, Text } from 'ink';
import { presentationOf, summaryOf, titleOf } from '../../kinds/index.js';
import { ProblemBanner, SettledBanner } from './outcome.js';
import { useAnswer } from './use-answer.js';
import { RequestHeader } from './request-header.js';
import { Keys, Say } from './theme.js';
import { useKeys } from './use-keys.js';
import type { RequestViewProps } from './view-props.js';

/**
 * A request of a kind the inbox has no view of its own for: what its kind says it is, and the answers its
 * kind offers as one key each (`choices`, numbered). A kind that offers none is answered elsewhere.
 */
export function GenericView(props: RequestViewProps) {
  const { action, settled, columns } = props;
  const choices = (presentationOf(action.kind).choices?.(action) ?? []).slice(0, 9);
  const answer = useAnswer(props);
  const { problem, sending, closed } = answer;
  const send = (index: number) => answer.send(choices[index].answer);

  useKeys((input, key) => {
    if (key.escape) return props.onBack();
    if (input === '?') return props.onHelp?.();
    if (sending || closed) return;
    const index = Number(input) - 1;
    if (Number.isInteger(index) && index >= 0 && index < choices.length) void send(index);
  });

  const keys = choices.map((choice, index) => `${index + 1} ${choice.label}`);
  return (
    <Box flexDirection="column">
      <RequestHeader action={action} agent={props.agent} now={props.now} columns={columns} />
      <Say tone="strong">{titleOf(action)}</Say>
      <Text wrap="wrap">{summaryOf(action)}</Text>
      {choices.length === 0 ? <Say tone="dim">This request cannot be answered here.</Say> : null}
      <SettledBanner action={action} settled={settled} />
      <ProblemBanner action={action} problem={problem} />
      {sending ? <Say tone="dim">Sending…</Say> : null}
      <Keys>{closed || choices.length === 0 ? 'Esc back' : [...keys, 'Esc back'].join(' · ')}</Keys>
    </Box>
  );
}
