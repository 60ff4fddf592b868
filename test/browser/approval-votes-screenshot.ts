// `npx tsx test/browser/approval-votes-screenshot.ts`: the picture in docs/approvals.md — the console's
// approval card half-way through its votes (2 of bob, cat and dan; bob has allowed), as cat sees it.
import { fileURLToPath } from 'node:url';
import { quorumAgent, quorumTokens } from '../fixtures/quorum-agent.js';
import buildConsole from '../setup/console-build.js';
import { dock, newContext, signIn, startHarness } from './harness.js';

const docs = (name: string) => fileURLToPath(new URL(`../../docs/${name}`, import.meta.url));

await buildConsole();
const harness = await startHarness({ agents: [quorumAgent(() => undefined)], auth: { tokens: quorumTokens } });
try {
  const call = async (token: string, method: string, path: string, body?: unknown) => {
    const response = await fetch(`${harness.url}${path}`, {
      method,
      headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    return response.json();
  };
  const { id } = await call('ada', 'POST', '/api/conversations', { agent: 'payments' });
  const sent = await call('ada', 'POST', `/api/conversations/${id}/messages`, {
    content: 'pay acme for the March invoice',
  });
  const actionId = sent.pendingActions[0].id;
  await call('bob', 'POST', `/api/conversations/${id}/actions/${actionId}`, {
    resolution: { type: 'approval', decision: 'allow', comment: 'Matches the invoice.' },
  });

  const context = await newContext(harness, { width: 1100, height: 760 });
  const page = await context.newPage();
  await signIn(page, 'cat');
  await page.goto(`/c/${id}`);
  await dock(page).getByText('1 of 2 approvals').waitFor();
  await page.mouse.move(0, 0);
  await page.screenshot({ path: docs('approval-votes.png') });
  console.log('Wrote docs/approval-votes.png.');
} finally {
  await harness.close();
}
