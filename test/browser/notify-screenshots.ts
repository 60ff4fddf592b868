// `npx tsx test/browser/notify-screenshots.ts`: the pictures in docs/notifications.md, taken in headless
// Chromium: the answer link page of an approval, and the email about a question as a mail reader shows it.
import { fileURLToPath } from 'node:url';
import { smtpReceiver } from '../notify/receivers.js';
import buildConsole from '../setup/console-build.js';
import { newContext, startHarness } from './harness.js';

const docs = (name: string) => fileURLToPath(new URL(`../../docs/${name}`, import.meta.url));
const escape = (text: string) =>
  text.replace(/[&<>"]/g, (char) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;' })[char]!);

await buildConsole();
const smtp = await smtpReceiver();
const harness = await startHarness({
  notify: {
    email: { transport: smtp.transport, from: 'Heed <heed@example.com>', to: () => 'ada@example.com' },
    pollIntervalMs: 50,
  },
});
const api = async (method: string, path: string, body?: unknown) =>
  (
    await fetch(`${harness.url}${path}`, {
      method,
      headers: { authorization: 'Bearer tok-ada', 'content-type': 'application/json' },
      body: body === undefined ? undefined : JSON.stringify(body),
    })
  ).json();
try {
  const refund = await api('POST', '/api/conversations', { agent: 'refunds' });
  await api('POST', `/api/conversations/${refund.id}/messages`, { content: 'refund order 1042 for $80' });
  const question = await api('POST', '/api/conversations', { agent: 'confirm' });
  await api('POST', `/api/conversations/${question.id}/messages`, { content: 'ship it?' });
  await smtp.until(() => smtp.mails.length === 2);
  const approvalMail = smtp.mails.find((mail) => mail.subject?.includes('Approve'))!;
  const questionMail = smtp.mails.find((mail) => mail.subject?.includes('Question'))!;

  const context = await newContext(harness, { width: 900, height: 760 });
  const page = await context.newPage();
  // The mail's Approve… button: the page opens on that choice.
  const link = /href="([^"]+\/a\/[^"?]+\?choice=allow)"/.exec(String(approvalMail.html))![1];
  await page.goto(link.replace(/^https?:\/\/[^/]+/, harness.url));
  await page.getByRole('heading', { name: /Refund \$80/ }).waitFor();
  await page.screenshot({ path: docs('answer-link-page.png') });

  const headers = `<div style="font:14px system-ui;padding:12px 16px;border-bottom:1px solid #ddd;background:#fafafa">
    <div><b>From:</b> ${escape(questionMail.from!.text)}</div><div><b>To:</b> ada@example.com</div>
    <div><b>Subject:</b> ${escape(questionMail.subject!)}</div></div>`;
  await page.setContent(`${headers}<div style="padding:8px 16px">${String(questionMail.html)}</div>`);
  await page.setViewportSize({ width: 760, height: 420 });
  await page.screenshot({ path: docs('email-question.png') });
  console.log('saved docs/answer-link-page.png and docs/email-question.png');
} finally {
  await harness.close();
  await smtp.close();
}
