import { Box, Text } from 'ink';
import { useKeys } from './use-keys.js';
import { fit } from './format.js';
import { SettledBanner } from './outcome.js';
import { RequestHeader } from './request-header.js';
import { Keys, Say } from './theme.js';
import type { ClientToolActionView } from '../../client/index.js';
import type { RequestViewProps } from './view-props.js';

/** A client tool waits on the page that runs the chat, not on a person: shown, not answerable here. */
export function ClientToolView(props: RequestViewProps<ClientToolActionView>) {
  const { action, settled, columns, rows } = props;
  useKeys((input, key) => {
    if (key.escape) props.onBack();
    if (input === '?') props.onHelp?.();
  });
  const lines = (JSON.stringify(action.args, null, 2) ?? '').split('\n').slice(0, Math.max(3, rows - 9));
  return (
    <Box flexDirection="column">
      <RequestHeader action={action} agent={props.agent} now={props.now} columns={columns} />
      <Say tone="strong">{`${action.toolName} runs in the page (${action.clientKind ?? 'page'})`}</Say>
      <Text wrap="wrap">
        The page that runs this conversation answers it, not a person; there is nothing to answer here.
      </Text>
      <Say tone="dim">Arguments:</Say>
      {lines.map((line, index) => (
        <Text key={index}>{fit(line, columns)}</Text>
      ))}
      <SettledBanner action={action} settled={settled} />
      <Keys>Esc back</Keys>
    </Box>
  );
}
