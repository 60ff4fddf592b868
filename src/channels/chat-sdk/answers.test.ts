import { describe, expect, it } from 'vitest';
import type { ActionRecord } from '../../types.js';
import { clickAnswer, readCommand, typedAnswer } from './answers.js';
import { buttonValue, readButton } from './cards.js';

const approval = {
  kind: 'approval',
  request: { kind: 'approval', title: 't', summary: 's', args: {} },
} as never as ActionRecord;
const question = {
  kind: 'question',
  request: {
    kind: 'question',
    questions: [
      {
        id: 'size',
        header: 'Size',
        prompt: 'Which?',
        options: [
          { value: 's', label: 'Small' },
          { value: 'l', label: 'Large' },
        ],
      },
      { id: 'qty', header: 'Quantity', prompt: 'How many?' },
    ],
  },
} as never as ActionRecord;
const one = {
  kind: 'question',
  request: {
    kind: 'question',
    questions: [question.request.kind === 'question' ? question.request.questions[0] : never()],
  },
} as never as ActionRecord;
function never(): never {
  throw new Error('unreachable');
}

describe('answers typed or clicked in a channel', () => {
  it('reads comment commands, and nothing else as one', () => {
    expect(readCommand('/deny  too much ')).toEqual({ command: 'deny', rest: 'too much' });
    expect(readCommand('/APPROVE')).toEqual({ command: 'approve', rest: '' });
    expect(readCommand('/merge now')).toBeUndefined();
    expect(readCommand('please /approve')).toBeUndefined();
  });

  it('turns commands and replies into each kind’s answer', () => {
    expect(typedAnswer(approval, '/approve', false)).toEqual({ type: 'approval', decision: 'allow' });
    expect(typedAnswer(approval, '/deny not this one', false)).toEqual({
      type: 'approval',
      decision: 'deny',
      comment: 'not this one',
    });
    expect(typedAnswer(approval, 'deny nope', true)).toEqual({ type: 'approval', decision: 'deny', comment: 'nope' });
    expect(typedAnswer(approval, 'deny nope', false)).toBeUndefined();
    expect(typedAnswer(question, '/answer size=2 qty=3', false)).toEqual({
      type: 'question',
      answers: { size: 'l', qty: '3' },
    });
    expect(typedAnswer(question, 'size="Extra large" qty=1', true)).toEqual({
      type: 'question',
      answers: { size: 'Extra large', qty: '1' },
    });
    // Two questions need names; an unknown name answers nothing.
    expect(typedAnswer(question, '/answer 2', false)).toBeUndefined();
    expect(typedAnswer(question, '/answer colour=red', false)).toBeUndefined();
    expect(typedAnswer(one, '/answer 2', false)).toEqual({ type: 'question', answers: { size: 'l' } });
    expect(typedAnswer(one, 'a medium one', true)).toEqual({ type: 'question', answers: { size: 'a medium one' } });
    expect(typedAnswer(one, '/skip', false)).toEqual({ type: 'question', skip: true });
  });

  it('a button carries the action id and its choice, and nothing else is read as one', () => {
    const value = buttonValue('a_mij3k0x2004Zq9_d', 'o1');
    expect(readButton(value)).toEqual({ actionId: 'a_mij3k0x2004Zq9_d', choice: 'o1' });
    expect(readButton('a_x:run_everything')).toBeUndefined();
    expect(readButton(undefined)).toBeUndefined();
    expect(clickAnswer(one, 'o1')).toEqual({ type: 'question', answers: { size: 'l' } });
    expect(clickAnswer(one, 'o7')).toBeUndefined();
    expect(clickAnswer(approval, 'o1')).toBeUndefined();
    expect(clickAnswer(approval, 'deny')).toEqual({ type: 'approval', decision: 'deny' });
  });
});
