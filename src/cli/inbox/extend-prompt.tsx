import { useState } from 'react';
import type { ActionView, HeedClient } from '../../client/index.js';
import { headlineOf } from '../../kinds/index.js';
import { fit } from './format.js';
import { answerProblem } from './inbox-state.js';
import { Keys, Say } from './theme.js';
import { useKeys } from './use-keys.js';

/** What `E` offers: the request then lapses this long from now (docs/approvals.md, Reminders and extensions). */
export const EXTEND_CHOICES = [
  { key: '1', minutes: 60, label: '1 hour' },
  { key: '2', minutes: 240, label: '4 hours' },
  { key: '3', minutes: 1440, label: '1 day' },
  { key: '4', minutes: 4320, label: '3 days' },
];

/**
 * `E` on a waiting request of the list: a line that asks how long from now it should wait (1–4), then
 * extends it (`POST …/actions/{actionId}/extend`) and says how it went; Esc leaves it unchanged.
 */
export function ExtendPrompt({
  client,
  action,
  columns,
  onDone,
}: {
  client: HeedClient;
  action: ActionView;
  columns: number;
  onDone(outcome: { text: string; bad: boolean } | undefined): void;
}) {
  const [busy, setBusy] = useState(false);
  useKeys(
    (input, key) => {
      if (key.escape) return onDone(undefined);
      const choice = EXTEND_CHOICES.find((entry) => entry.key === input);
      if (!choice) return;
      setBusy(true);
      client.extend(action.conversationId, action.id, choice.minutes).then(
        ({ action: extended }) =>
          onDone({
            text: extended.expiresAt
              ? `Extended: it now lapses ${new Date(extended.expiresAt).toLocaleString()}.`
              : 'Extended: it never lapses now.',
            bad: false,
          }),
        (thrown: unknown) => onDone({ text: answerProblem(thrown).message, bad: true }),
      );
    },
    { isActive: !busy },
  );
  const choices = EXTEND_CHOICES.map((entry) => `${entry.key} ${entry.label}`).join(' · ');
  return (
    <>
      <Say tone="accent">{fit(`Extend “${headlineOf(action)}”: wait how long from now?`, columns)}</Say>
      <Keys>{busy ? 'Extending…' : fit(`${choices} · Esc cancel`, columns)}</Keys>
    </>
  );
}
