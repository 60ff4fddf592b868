import { Box, Text } from 'ink';
import { useKeys } from './use-keys.js';
import { useRef, useState } from 'react';
import { allowsCustom, optionHotkey } from '../../client/question-drafts.js';
import type { Question } from '../../types.js';
import { fit } from './format.js';
import { ProblemBanner, SettledBanner } from './outcome.js';
import { useAnswer } from './use-answer.js';
import {
  choiceRows,
  commandKey,
  formAnswers,
  inputHint,
  isTyped,
  questionKey,
  startForm,
  withServerProblems,
  type QuestionFormState,
} from './question-state.js';
import { RequestHeader } from './request-header.js';
import { Field, Keys, Say } from './theme.js';
import type { QuestionActionView } from '../../client/index.js';
import type { RequestViewProps } from './view-props.js';

/** A question action, one question at a time, its defaults pre-picked. */
export function QuestionView(props: RequestViewProps<QuestionActionView>) {
  const { action, settled, columns } = props;
  const questions = action.questions ?? [];
  const [form, setForm] = useState<QuestionFormState>(() => startForm(questions));
  // The server's per-field sentences go beside the fields; the drafts stay as typed.
  const { send, problem, sending, closed } = useAnswer(props, (_problem, thrown) =>
    setForm((current) =>
      withServerProblems(questions, current, (thrown as { details?: Record<string, unknown> }).details),
    ),
  );
  const formRef = useRef(form);
  formRef.current = form;

  useKeys((input, key) => {
    if (sending || questions.length === 0) return;
    // Outside a text field `?` shows the keys; in one it is a character like any other.
    if (input === '?' && !formRef.current.editing) return props.onHelp?.();
    if (closed) {
      if (key.escape) props.onBack();
      return;
    }
    // Keys typed in one burst are handled before React draws again: read the form as the last key left it.
    const { state, command } = questionKey(questions, formRef.current, input, key);
    formRef.current = state;
    setForm(state);
    if (command === 'back') props.onBack();
    else if (command === 'skip') void send({ type: 'question', skip: true });
    else if (command === 'dismiss') void send({ type: 'question', dismiss: true });
    else if (command === 'submit') void send({ type: 'question', answers: formAnswers(questions, state) });
  });

  const question = questions[form.index];
  if (!question) return <Text>This request holds no questions. Esc goes back.</Text>;
  const hasFieldProblem = problem?.type === 'invalid' && Object.keys(form.problems).length > 0;
  return (
    <Box flexDirection="column">
      <RequestHeader action={action} agent={props.agent} now={props.now} columns={columns} />
      {action.preamble && form.index === 0 ? <Text wrap="wrap">{action.preamble}</Text> : null}
      <Say tone="strong">{fit(`Question ${form.index + 1} of ${questions.length} — ${question.header}`, columns)}</Say>
      <Text wrap="wrap">{question.prompt}</Text>
      {question.description ? <Say tone="dim">{question.description}</Say> : null}
      <QuestionBody question={question} form={form} columns={columns} />
      <OptionPreview question={question} cursor={form.cursor} columns={columns} rows={props.rows} />
      {form.problems[question.id] ? <Say tone="bad">{`✗ ${form.problems[question.id]}`}</Say> : null}
      <SettledBanner action={action} settled={settled} />
      <ProblemBanner action={action} problem={hasFieldProblem ? undefined : problem} />
      {sending ? <Say tone="dim">Sending…</Say> : null}
      <Keys>{closed ? 'Esc back' : keyHelp(question, form, form.index === questions.length - 1)}</Keys>
    </Box>
  );
}

function QuestionBody({ question, form, columns }: { question: Question; form: QuestionFormState; columns: number }) {
  const draft = form.drafts[question.id];
  const rows = choiceRows(question);
  if (rows.length === 0) {
    return (
      <Box flexDirection="column">
        <Field label="›" text={draft.text} focused={form.editing} placeholder={question.input?.placeholder} />
        <Say tone="dim">{inputHint(question)}</Say>
      </Box>
    );
  }
  const options = Boolean(question.options?.length);
  const picked = (value: string) => (options ? draft.selected.includes(value) : draft.text === value);
  const otherRow = allowsCustom(question) ? rows.length : -1;
  return (
    <Box flexDirection="column">
      {rows.map((row, index) => {
        const hotkey = options ? optionHotkey(question, index) : row.hotkey;
        const mark = question.multiple ? (picked(row.value) ? '[x]' : '[ ]') : picked(row.value) ? '(•)' : '( )';
        const description = question.options?.[index]?.description;
        return (
          <Text key={row.value}>
            {index === form.cursor ? '› ' : '  '}
            {hotkey ? `${hotkey}  ` : '   '}
            {mark} {fit(row.label, columns - 12)}
            {description ? (
              <Say tone="dim">{fit(` — ${description}`, Math.max(0, columns - 14 - row.label.length))}</Say>
            ) : null}
          </Text>
        );
      })}
      {otherRow >= 0 ? (
        <Text>
          {form.cursor === otherRow ? '› ' : '  '}
          {'   '}
          <Field label="Other:" text={draft.custom} focused={form.editing} placeholder="(type here)" />
        </Text>
      ) : null}
    </Box>
  );
}

/**
 * The preview of the option under the cursor (seed 002: a code or ASCII sketch shown while the option is
 * focused), its lines kept as written and cut to the terminal, as many as the screen has room for.
 */
function OptionPreview({
  question,
  cursor,
  columns,
  rows,
}: {
  question: Question;
  cursor: number;
  columns: number;
  rows: number;
}) {
  const option = question.options?.[cursor];
  if (!option?.preview) return null;
  const lines = option.preview.replace(/\r\n?/g, '\n').replace(/\t/g, '  ').split('\n');
  const room = Math.max(2, Math.min(12, rows - 12 - (question.options?.length ?? 0)));
  const shown = lines.length > room ? lines.slice(0, room - 1) : lines;
  return (
    <Box flexDirection="column">
      <Say tone="dim">{fit(`Preview of ${option.label}:`, columns)}</Say>
      {shown.map((line, index) => (
        <Text key={index}>{fit(`  │ ${line}`, columns)}</Text>
      ))}
      {shown.length < lines.length ? <Say tone="dim">{`  │ … ${lines.length - shown.length} more lines`}</Say> : null}
    </Box>
  );
}

function keyHelp(question: Question, form: QuestionFormState, last: boolean): string {
  const enter = last ? 'Enter send' : 'Enter next';
  const back = form.index > 0 ? ' · ← previous' : '';
  if (form.editing)
    return isTyped(question)
      ? `type the answer · ${enter} · Esc leave the field (then s skip, x dismiss)`
      : `type · ↑ options · ${enter} · Esc leave the field`;
  const pick = question.multiple ? 'number or hotkey / Space toggle' : 'number or hotkey / Space pick';
  return `${isTyped(question) ? 'type to edit' : `↑↓ move · ${pick}`} · ${enter} · ${commandKey(question, 's')} skip · ${commandKey(question, 'x')} dismiss${back} · Esc back`;
}
