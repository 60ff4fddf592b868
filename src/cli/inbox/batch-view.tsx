import { Box, Text } from 'ink';
import { headlineOf } from '../../kinds/index.js';
import type { BatchOutcome, BatchPlan } from '../../react/state/batch.js';
import { fit } from './format.js';
import { Keys, Say } from './theme.js';
import { useKeys } from './use-keys.js';

/** Where a batch of the marked requests is: asked to confirm, on its way, or answered (each outcome). */
export type BatchStage =
  | { stage: 'confirm'; plan: BatchPlan; error?: string }
  | { stage: 'sending'; plan: BatchPlan }
  | { stage: 'done'; plan: BatchPlan; outcomes: BatchOutcome[] };

const count = (n: number) => (n === 1 ? '1 request' : `${n} requests`);

/**
 * `A` or `D` on the marked requests (docs/terminal-inbox.md): what will be sent and run, and what is left
 * out and why, confirmed with `y`; then how each answer went. Nothing is remembered in a batch.
 */
export function BatchView({
  batch,
  columns,
  onSend,
  onClose,
}: {
  batch: BatchStage;
  columns: number;
  onSend(): void;
  onClose(): void;
}) {
  const { plan } = batch;
  const verb = plan.decision === 'approve' ? 'Approve' : 'Deny';
  useKeys((input, key) => {
    if (batch.stage === 'sending') return;
    if (batch.stage === 'done') return onClose();
    if ((input === 'y' || key.return) && plan.send.length > 0) return onSend();
    if (input === 'n' || input === 'q' || key.escape) return onClose();
  });

  if (batch.stage === 'done') {
    const settled = batch.outcomes.filter((outcome) => outcome.state === 'settled').length;
    return (
      <Box flexDirection="column">
        <Say tone="strong">{fit(`${verb}: ${settled} of ${count(batch.outcomes.length)} settled`, columns)}</Say>
        {batch.outcomes.map((outcome) => (
          <Text key={outcome.action.id}>
            <Say tone={outcome.state === 'settled' ? 'good' : outcome.state === 'answered' ? 'warn' : 'bad'}>
              {outcome.state === 'settled' ? '✓ ' : outcome.state === 'answered' ? '× ' : '✗ '}
            </Say>
            {fit(`${headlineOf(outcome.action)} — ${outcome.text}`, columns * 2 - 2)}
          </Text>
        ))}
        <Keys>any key back to the list</Keys>
      </Box>
    );
  }

  const runs = plan.send.filter((item) => item.runs);
  return (
    <Box flexDirection="column">
      <Say tone="strong">
        {fit(
          plan.send.length === 0
            ? `None of the marked can be ${plan.decision === 'approve' ? 'approved' : 'denied'} here`
            : `${verb} ${count(plan.send.length)}?`,
          columns,
        )}
      </Say>
      {plan.decision === 'approve' && plan.send.length > 0 ? (
        <>
          <Text>{runs.length === 0 ? 'No tool runs.' : 'Will run:'}</Text>
          {runs.map((item) => (
            <Text key={item.action.id}>{fit(`  ${item.runs}`, columns * 2)}</Text>
          ))}
        </>
      ) : null}
      {plan.decision === 'deny' && plan.send.length > 0 ? (
        <>
          <Text>Nothing runs. Will be denied:</Text>
          {plan.send.map((item) => (
            <Text key={item.action.id}>{fit(`  ${headlineOf(item.action)}`, columns)}</Text>
          ))}
        </>
      ) : null}
      {plan.leftOut.length > 0 ? (
        <>
          <Text>{`Left out (${plan.leftOut.length}):`}</Text>
          {plan.leftOut.map(({ action, reason }) => (
            <Say key={action.id} tone="dim">
              {fit(`  ${headlineOf(action)} — ${reason}`, columns * 2)}
            </Say>
          ))}
        </>
      ) : null}
      {plan.decision === 'approve' && plan.send.length > 0 ? (
        <Say tone="dim">Each is approved once: no approval is remembered.</Say>
      ) : null}
      {batch.stage === 'confirm' && batch.error ? <Say tone="bad">✗ {batch.error}</Say> : null}
      <Keys>
        {batch.stage === 'sending'
          ? 'sending…'
          : plan.send.length > 0
            ? `y ${verb.toLowerCase()} ${count(plan.send.length)} · n or Esc back`
            : 'n or Esc back'}
      </Keys>
    </Box>
  );
}
