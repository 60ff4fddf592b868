import { Box, Text } from 'ink';
import { useKeys } from './use-keys.js';
import { useRef, useState } from 'react';
import type { ResolutionInput } from '../../client/index.js';
import {
  argumentProblems,
  argumentRows,
  fieldText,
  parseEdited,
  serverArgumentProblem,
  setArgument,
} from './approval-state.js';
import { column, fit } from './format.js';
import { ProblemBanner, SettledBanner } from './outcome.js';
import { useAnswer } from './use-answer.js';
import { RequestHeader } from './request-header.js';
import { Field, Keys, Say } from './theme.js';
import type { ApprovalActionView } from '../../client/index.js';
import type { RequestViewProps } from './view-props.js';
import { votesSummary } from '../../kinds/approval-votes.js';

type Mode = 'view' | 'comment' | 'edit' | 'field';

/** An approval: the call's arguments as JSON; `a` allows, `d` denies, `e` edits, `r` remembers. */
export function ApprovalView(props: RequestViewProps<ApprovalActionView>) {
  const { action, system, settled, rows, columns } = props;
  const [args, setArgs] = useState<unknown>(action.args);
  const [edited, setEdited] = useState(false);
  const [remember, setRemember] = useState(false);
  const [mode, setMode] = useState<Mode>('view');
  const [comment, setComment] = useState('');
  const [fieldCursor, setFieldCursor] = useState(0);
  const [text, setText] = useState('');
  const [pristine, setPristine] = useState(true);
  const [problems, setProblems] = useState<Record<string, string>>({});
  const [note, setNote] = useState<string>();
  // What the editor returned last when it was not JSON: opened again as it was, so nothing typed is lost.
  const editorDraft = useRef<string | undefined>(undefined);
  const fields = argumentRows(args, action.argsSchema);
  const { send, problem, sending, closed } = useAnswer(props, (next, thrown) => {
    if ((thrown as { code?: string }).code === 'invalid_approved_args' && next.type === 'invalid')
      setProblems(serverArgumentProblem(next.message, next.field));
  });

  function allow() {
    if (edited) {
      const found = argumentProblems(action.argsSchema, args);
      setProblems(found);
      if (Object.keys(found).length > 0)
        return setNote('The edited arguments do not fit the tool; e edits them again.');
    }
    setNote(undefined);
    void send({
      type: 'approval',
      decision: 'allow',
      ...(edited ? { approvedArgs: args } : {}),
      ...(remember ? { remember: true } : {}),
    } as ResolutionInput);
  }

  async function editInEditor(edit: NonNullable<typeof system.editText>) {
    const result = await edit(editorDraft.current ?? JSON.stringify(args, null, 2));
    if (!result.ok) return setNote(result.message);
    const parsed = parseEdited(result.text);
    if (!parsed.ok) {
      editorDraft.current = result.text;
      setProblems({ '': parsed.message });
      return setNote('e opens the editor again with your text.');
    }
    editorDraft.current = undefined;
    setArgs(parsed.args);
    setEdited(true);
    setProblems(argumentProblems(action.argsSchema, parsed.args));
    setNote(undefined);
  }

  useKeys((input, key) => {
    if (sending) return;
    if (mode === 'comment') {
      if (key.escape) return setMode('view');
      if (key.return)
        return void send({
          type: 'approval',
          decision: 'deny',
          ...(comment.trim() ? { comment: comment.trim() } : {}),
        });
      if (key.backspace || key.delete) return setComment((current) => Array.from(current).slice(0, -1).join(''));
      if (!key.ctrl && !key.meta && input) setComment((current) => current + input);
      return;
    }
    if (mode === 'edit') {
      if (input === '?') return props.onHelp?.();
      if (key.escape) return setMode('view');
      if (key.upArrow || input === 'k') return setFieldCursor((cursor) => Math.max(0, cursor - 1));
      if (key.downArrow || input === 'j') return setFieldCursor((cursor) => Math.min(fields.length - 1, cursor + 1));
      if (key.return && fields[fieldCursor]) {
        setText(fieldText(args, fields[fieldCursor]));
        setPristine(true);
        return setMode('field');
      }
      return;
    }
    if (mode === 'field') {
      const row = fields[fieldCursor];
      if (key.escape) return setMode('edit');
      if (key.return) {
        const next = setArgument(args, row, text);
        setArgs(next);
        setEdited(true);
        setProblems(argumentProblems(action.argsSchema, next));
        setNote(undefined);
        return setMode('edit');
      }
      if (key.backspace || key.delete) {
        setPristine(false);
        return setText((current) => Array.from(current).slice(0, -1).join(''));
      }
      if (!key.ctrl && !key.meta && input) {
        setText((current) => (pristine ? '' : current) + input);
        setPristine(false);
      }
      return;
    }
    if (key.escape) return props.onBack();
    if (input === '?') return props.onHelp?.();
    if (closed) return;
    if (input === 'a') return allow();
    if (input === 'd') return setMode('comment');
    if (input === 'e') {
      if (system.editText) return void editInEditor(system.editText);
      setFieldCursor(0);
      return setMode('edit');
    }
    if (input === 'r') {
      if (!action.canRemember)
        return setNote('This tool decides per call whether it asks, so it cannot be remembered.');
      return setRemember((current) => !current);
    }
  });

  const summary = votesSummary(action);
  const json = JSON.stringify(args, null, 2) ?? 'undefined';
  const lines = json.split('\n');
  const room = Math.max(3, rows - 11);
  const shown = lines.length > room ? [...lines.slice(0, room - 1), `… ${lines.length - room + 1} more lines`] : lines;
  const nameWidth = Math.min(20, Math.max(8, ...fields.map((row) => row.name.length + 1)));
  const valueWidth = Math.max(10, Math.min(40, columns - nameWidth - 6));

  return (
    <Box flexDirection="column">
      <RequestHeader action={action} agent={props.agent} now={props.now} columns={columns} />
      <Say tone="strong">{fit(action.title || `Run ${action.toolName}?`, columns)}</Say>
      {action.summary ? <Text wrap="wrap">{action.summary}</Text> : null}
      {summary ? <Say tone="dim">{fit(summary, columns)}</Say> : null}
      <Say tone="dim">{edited ? 'Arguments (edited):' : 'Arguments:'}</Say>
      {mode === 'edit' || mode === 'field' ? (
        <Box flexDirection="column">
          {fields.map((row, index) => {
            const here = index === fieldCursor;
            const value = mode === 'field' && here ? null : fit(fieldText(args, row) || '(empty)', valueWidth);
            return (
              <Text key={row.name || 'value'}>
                {here ? '› ' : '  '}
                {column(row.name || '(value)', nameWidth)}
                {value ?? <Field text={text} focused />}
                {problems[row.name] ? <Say tone="bad">{`  ✗ ${problems[row.name]}`}</Say> : null}
              </Text>
            );
          })}
        </Box>
      ) : (
        <Box flexDirection="column">
          {shown.map((line, index) => (
            <Text key={index}>{fit(line, columns)}</Text>
          ))}
          {Object.entries(problems).map(([name, message]) => (
            <Say key={name} tone="bad">
              {fit(`✗ ${name && !message.startsWith(name) ? `${name}: ` : ''}${message}`, columns * 2)}
            </Say>
          ))}
        </Box>
      )}
      {action.canRemember ? (
        <Text>{`${remember ? '[x]' : '[ ]'} Don't ask again in this conversation (r)`}</Text>
      ) : null}
      {mode === 'comment' ? <Field label="Deny — comment (optional):" text={comment} focused /> : null}
      <SettledBanner action={action} settled={settled} />
      <ProblemBanner
        action={action}
        problem={problem?.type === 'invalid' && Object.keys(problems).length ? undefined : problem}
      />
      {note ? <Say tone="warn">{note}</Say> : null}
      {sending ? <Say tone="dim">Sending…</Say> : null}
      <Keys>
        {mode === 'comment'
          ? 'Enter deny · Esc back'
          : mode === 'edit'
            ? '↑↓ field · Enter edit it · Esc done'
            : mode === 'field'
              ? 'Enter keep · Esc undo'
              : closed
                ? 'Esc back'
                : `a allow · d deny · e edit${action.canRemember ? ' · r remember' : ''} · Esc back`}
      </Keys>
    </Box>
  );
}
