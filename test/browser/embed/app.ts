// An app that embeds heed/react: the package's approval card and its stylesheet, nothing of the
// console. test/browser/embed-styles.test.ts bundles it against the built package (dist/).
import { createElement } from 'react';
import { createRoot } from 'react-dom/client';
import { ApprovalCard, type ActionView } from 'heed/react';
import 'heed/react/styles.css';

const action: ActionView = {
  id: 'act_embed',
  kind: 'approval',
  conversationId: 'conv_embed',
  messageId: 'msg_embed',
  toolCallId: 'call_embed',
  toolName: 'issue_refund',
  status: 'pending',
  createdAt: new Date(0).toISOString(),
  title: 'Refund $80 on order 1042?',
  summary: 'Money goes back to the card used for the order.',
  canRemember: false,
  args: { orderId: '1042', amount: 80 },
  argsSchema: {
    type: 'object',
    properties: { orderId: { type: 'string' }, amount: { type: 'number' } },
    required: ['orderId', 'amount'],
  },
};

createRoot(document.getElementById('root')!).render(
  createElement(ApprovalCard, { action, onSubmit: async () => ({ ok: true as const }) }),
);
