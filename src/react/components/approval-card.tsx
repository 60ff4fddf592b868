import { useEffect, useId, useRef, useState } from 'react';
import type { ResolutionInput } from '../../protocol/resolution-input.js';
import { isPlainObject } from '../../kinds/plain-object.js';
import type { ApprovalActionView } from '../../views.js';
import type { AnswerResult } from '../state/conversation-store.js';
import { votesSummary } from '../state/votes.js';
import { AnswerNotice, useAnswerSender } from './answer-notice.js';
import { EditArguments } from './arguments-editor.js';
import { useArgumentsEditor, type ArgumentsEditor } from './use-arguments-editor.js';

export interface ApprovalCardProps {
  /** A pending `approval` action. */
  action: ApprovalActionView;
  onSubmit: (resolution: ResolutionInput) => Promise<AnswerResult>;
  busy?: boolean;
  autoFocus?: boolean;
  /**
   * The answer already picked elsewhere (an answer link's `?choice=deny`): the card says so, marks that
   * button, and (a deny) puts the keyboard in the comment. Nothing is sent until the button is pressed.
   */
  chosen?: 'allow' | 'deny';
}

/**
 * Asks whether a tool may run: its name, title, summary and arguments. The arguments can be edited
 * (checked against the tool's schema before anything is sent), with a comment, and an approval can
 * be remembered for the rest of the conversation.
 *
 * @example
 * ```tsx
 * <ApprovalCard action={action} onSubmit={(resolution) => answer(action.id, resolution)} />
 * ```
 */
export function ApprovalCard({ action, onSubmit, busy = false, autoFocus = false, chosen }: ApprovalCardProps) {
  const base = useId();
  const editor = useArgumentsEditor(action);
  const [comment, setComment] = useState('');
  const [remember, setRemember] = useState(false);
  const sender = useAnswerSender(onSubmit);
  const rootRef = useRef<HTMLElement>(null);
  const commentRef = useRef<HTMLTextAreaElement>(null);
  const disabled = busy || sender.sending;

  useEffect(() => {
    // The card itself takes the focus, not Allow: a stray Enter must not approve anything.
    if (autoFocus && chosen === 'deny') commentRef.current?.focus();
    else if (autoFocus) rootRef.current?.focus();
    // Only when the card appears.
  }, []);

  async function decide(decision: 'allow' | 'deny') {
    if (decision === 'allow' && editor.problems.length > 0) return;
    editor.showServerProblem(undefined);
    const resolution: ResolutionInput = {
      type: 'approval',
      decision,
      ...(comment.trim() ? { comment: comment.trim() } : {}),
      ...(decision === 'allow' && editor.changed ? { approvedArgs: editor.value as Record<string, unknown> } : {}),
      ...(decision === 'allow' && remember ? { remember: true } : {}),
    };
    await sender.send(resolution, (error) => {
      if (error.code !== 'invalid_approved_args') return false;
      // The server's own check of the edited arguments: shown in the editor, beside the field it names.
      const field = typeof error.details?.field === 'string' ? error.details.field : '';
      editor.showServerProblem({ field: field === '(the arguments)' ? '' : field, message: error.message });
      return true;
    });
  }

  return (
    <section
      ref={rootRef}
      tabIndex={-1}
      className="heed-card heed-approval-card"
      aria-labelledby={`${base}-title`}
      aria-busy={disabled}
    >
      <ApprovalHead action={action} titleId={`${base}-title`} />
      {!editor.editing ? (
        <ArgumentsView value={action.args} />
      ) : (
        <EditArguments editor={editor} base={base} disabled={disabled} />
      )}
      <div className="heed-field">
        <label htmlFor={`${base}-comment`}>Comment (optional)</label>
        <textarea
          ref={commentRef}
          id={`${base}-comment`}
          rows={2}
          value={comment}
          disabled={disabled}
          placeholder="The agent reads this with your decision"
          onChange={(event) => setComment(event.target.value)}
        />
      </div>
      {action.canRemember && (
        <label className="heed-check">
          <input
            type="checkbox"
            checked={remember}
            disabled={disabled}
            onChange={(event) => setRemember(event.target.checked)}
          />
          Don&apos;t ask again in this chat for {action.toolName}
        </label>
      )}
      <AnswerNotice text={sender.notice} />
      {chosen && (
        <p className="heed-chosen-note">
          {chosen === 'allow'
            ? 'You chose Allow in the message: check the arguments, then press Allow.'
            : 'You chose Deny in the message: add a comment if you like, then press Deny.'}
        </p>
      )}
      <ApprovalActions
        editor={editor}
        disabled={disabled}
        chosen={chosen}
        onDecide={(decision) => void decide(decision)}
      />
    </section>
  );
}

/** The tool's name and the approval's title and summary, with the votes so far when it takes several. */
function ApprovalHead({ action, titleId }: { action: ApprovalActionView; titleId: string }) {
  const votes = votesSummary(action);
  return (
    <>
      <div className="heed-card-head">
        <h3 id={titleId} className="heed-card-title">
          {action.title || `Run ${action.toolName}?`}
        </h3>
        <span className="heed-chip heed-tool-name" title="Tool">
          {action.toolName}
        </span>
      </div>
      {action.summary && <p className="heed-description">{action.summary}</p>}
      {votes && (
        <p className="heed-votes" aria-live="polite">
          {votes}
        </p>
      )}
    </>
  );
}

/** Allow (with changes), Deny, and the switch between the original arguments and the editor. */
function ApprovalActions({
  editor,
  disabled,
  chosen,
  onDecide,
}: {
  editor: ArgumentsEditor;
  disabled: boolean;
  chosen?: 'allow' | 'deny';
  onDecide: (decision: 'allow' | 'deny') => void;
}) {
  const mark = (decision: 'allow' | 'deny') => (chosen === decision ? ' heed-chosen' : '');
  return (
    <div className="heed-actions">
      <button
        type="button"
        className={`heed-button heed-primary${mark('allow')}`}
        disabled={disabled || editor.problems.length > 0}
        onClick={() => onDecide('allow')}
      >
        {editor.changed ? 'Allow with changes' : 'Allow'}
      </button>
      <button
        type="button"
        className={`heed-button heed-danger${mark('deny')}`}
        disabled={disabled}
        onClick={() => onDecide('deny')}
      >
        Deny
      </button>
      <span className="heed-spacer" />
      <button
        type="button"
        className="heed-button heed-quiet"
        aria-expanded={editor.editing}
        disabled={disabled}
        onClick={editor.toggle}
      >
        {editor.editing ? 'Keep the original arguments' : 'Edit arguments'}
      </button>
    </div>
  );
}

/** Arguments as a list of names and values (or JSON when they are not an object). */
export function ArgumentsView({ value }: { value: unknown }) {
  if (!isPlainObject(value)) return <pre className="heed-code">{JSON.stringify(value, null, 2)}</pre>;
  const entries = Object.entries(value);
  if (entries.length === 0) return <p className="heed-description">No arguments.</p>;
  return (
    <dl className="heed-args">
      {entries.map(([name, item]) => (
        <div key={name} className="heed-arg">
          <dt>{name}</dt>
          <dd>
            <code>{typeof item === 'string' ? item : JSON.stringify(item)}</code>
          </dd>
        </div>
      ))}
    </dl>
  );
}
