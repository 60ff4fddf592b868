import { Box, Text } from 'ink';
import { useKeys } from './use-keys.js';
import { useState } from 'react';
import { hostOf } from './format.js';
import { ProblemBanner, SettledBanner } from './outcome.js';
import { useAnswer } from './use-answer.js';
import { RequestHeader } from './request-header.js';
import { Keys, Say } from './theme.js';
import type { UrlActionView } from '../../client/index.js';
import type { RequestViewProps } from './view-props.js';

/** A request to open a URL: the address and its host in plain sight; `o` opens it, then accept or decline. */
export function UrlView(props: RequestViewProps<UrlActionView>) {
  const { action, system, settled, columns } = props;
  const url = action.url ?? '';
  const [opened, setOpened] = useState<string>();
  const answer = useAnswer(props);
  const { problem, sending, closed } = answer;
  const send = (decision: 'accept' | 'decline') => answer.send({ type: 'url', decision });

  useKeys((input, key) => {
    if (key.escape) return props.onBack();
    if (input === '?') return props.onHelp?.();
    if (sending || closed) return;
    if (input === 'o') {
      void system
        .openUrl(url)
        .then((done) =>
          setOpened(
            done
              ? 'Opened in your browser. When you are done there, accept or decline here.'
              : 'No browser to open here: copy the address above.',
          ),
        );
    }
    if (input === 'a') void send('accept');
    if (input === 'd') void send('decline');
  });

  return (
    <Box flexDirection="column">
      <RequestHeader action={action} agent={props.agent} now={props.now} columns={columns} />
      <Say tone="strong">{action.title ?? 'The agent asks you to open a page'}</Say>
      {action.message ? <Text wrap="wrap">{action.message}</Text> : null}
      <Text>
        Host: <Say tone="strong">{hostOf(url)}</Say>
      </Text>
      {/* The whole address on its own line, never cut, so it can be copied from the terminal. */}
      <Text wrap="wrap">{url}</Text>
      {opened ? <Say tone="dim">{opened}</Say> : null}
      <SettledBanner action={action} settled={settled} />
      <ProblemBanner action={action} problem={problem} />
      {sending ? <Say tone="dim">Sending…</Say> : null}
      <Keys>{closed ? 'Esc back' : 'o open · a accept (done) · d decline · Esc back'}</Keys>
    </Box>
  );
}
