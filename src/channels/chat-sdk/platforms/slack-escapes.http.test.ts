import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { startServer, type TestServer } from '../../../../test/http-fixtures.js';
import { channelAgent, HOSTILE_URL } from '../../../../test/channels/channel-agent.js';
import { fakeSlack, mention, sendToHeed, type FakeSlack, type SlackCall } from '../../../../test/slack/fake-slack.js';

/**
 * What a hostile agent writes into a request (test/channels/channel-agent.ts: a question full of links and
 * mentions, an address that tries to end Slack's `<url|text>` early) reaches Slack as words: the only
 * `<…>` markup in what Slack receives is Heed's own.
 */
const secret = 'slack-signing-secret-for-tests';
let slack: FakeSlack;
let server: TestServer;

beforeEach(async () => {
  slack = await fakeSlack();
  server = await startServer({
    agents: [channelAgent(new Map())],
    channels: { slack: { botToken: 'xoxb-test', signingSecret: secret, agent: 'support', apiUrl: slack.apiUrl } },
    notify: { pollIntervalMs: 50, retry: { firstDelayMs: 50, maxDelayMs: 200 } },
  });
});
afterEach(async () => {
  await server.close();
  await slack.close();
});

const withButtons = (call: SlackCall) =>
  (call.body.blocks ?? []).some((block: { type: string }) => block.type === 'actions');
/** Every mrkdwn text of a posted message, and its notification `text`. */
const mrkdwn = (call: SlackCall): string[] => [
  String(call.body.text ?? ''),
  ...(
    call.body.blocks as Array<{
      text?: { type: string; text: string };
      elements?: Array<{ type: string; text?: string }>;
    }>
  )
    .flatMap((block) => [block.text, ...(block.elements ?? [])])
    .filter((element): element is { type: string; text: string } => element?.type === 'mrkdwn')
    .map((element) => element.text),
];
/** Slack's markup tokens: `<url|text>`, `<!channel>`, `<@U1>`, `<!date^…>`. */
const tokens = (texts: string[]) => texts.flatMap((text) => text.match(/<[^>]*>/g) ?? []);

async function posted(content: string): Promise<SlackCall> {
  await sendToHeed(server.url, secret, mention(content, { ts: '1700000000.000001' }));
  await slack.until(() => slack.of('chat.postMessage').some(withButtons));
  return slack.of('chat.postMessage').find(withButtons)!;
}

describe('Slack: what an agent writes stays words', () => {
  it('links and mentions in a question arrive escaped: no link, no @channel, no <@U…>', async () => {
    const texts = mrkdwn(await posted('spoof'));
    expect(texts.join('\n')).toContain('the policy');
    expect(texts.join('\n')).toContain('&lt;!channel&gt; &lt;@U999&gt; &lt;https://evil.example/s|docs&gt;');
    expect(tokens(texts).filter((token) => !token.startsWith('<!date^'))).toEqual([]);
  });

  it("a URL request's address cannot end its <url|text> early: one link, to the whole address", async () => {
    const texts = mrkdwn(await posted('lure'));
    const target =
      'https://good.example/a%7CPay%20here%3E%20%3C!channel%3E%20%3Chttps://evil.example/b%7Cclick%29%20%5Bx%5D%28https://evil.example/c';
    const shown = HOSTILE_URL.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');
    expect(tokens(texts).filter((token) => !token.startsWith('<!date^'))).toEqual([`<${target}|${shown}>`]);
    expect(texts[0]).toBe(`Please open ${shown}`);
  });
});
