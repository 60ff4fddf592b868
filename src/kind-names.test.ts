import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

/*
 * Kinds answer for themselves (docs/architecture.md): a module outside src/kinds/ asks the kind's
 * presentation or rules (titleOf, summaryOf, headlineOf, nounOf, byKind, a registry keyed by kind) instead
 * of testing a kind's name. The modules below still test one; the count of each may only go down, and a
 * module reaching 0 is taken off the list. Those that raise a request of a given kind (a tool's ctx, the
 * model's ask tool, MCP) say why they name it.
 */

const src = dirname(fileURLToPath(import.meta.url));
const testsAKindName =
  /(kind|type) *[!=]== *'(approval|question|client_tool|url)'|case '(approval|question|client_tool|url)'/g;

const stillNamed = new Map<string, number>([
  ['http/ai-sdk/ui-messages.ts', 8], // the AI SDK tool parts differ by kind (approval parts, question output, page tool input)
  ['engine/turn/tool-context.ts', 6], // ctx.ask/approve/askLive build the request of their own kind
  ['channels/chat-sdk/platforms/slack-blocks.ts', 5], // the modal answers a question, and reads its questions; `case 'url'` is an input type
  ['engine/turn/tool-calls.ts', 4], // the model's built-in ask tool raises a question
  ['http/mcp-server/tools.ts', 4], // each tool of Heed's MCP server raises its own kind (ask_person a question, the others an approval) and reads its answer
  ['mcp/sampling.ts', 3], // an MCP request becomes an approval or a question
  ['mcp/elicitation.ts', 2], // an MCP elicitation becomes a question or a url request
  ['mcp/setup.ts', 2], // an MCP request becomes an approval or a question
  ['react/state/transcript.ts', 2], // an approval guards its call: the transcript says why that call did not run
  ['channels/chat-sdk/platforms/slack.ts', 1], // an option's button belongs to a question's card
  ['cli/demo-server.ts', 1], // the demo mails no intake question (a user's config, as a user would write it)
  ['cli/inbox/question-state.ts', 1], // `case 'url'` is a question's input type, not the kind
  ['demo/seed.ts', 1], // the demo answers its intake question
  ['engine/decide/lapse.ts', 1], // only an approval escalates
  ['engine/decide/settle.ts', 1], // only an approval is decided by votes
  ['heed.ts', 1], // `pending.answer(value)` takes a question's answers in their short form
  ['http/ai-sdk/ui-stream.ts', 1], // a denied approval's call shows as `output-denied` in the AI SDK
  ['react/components/tool-cards.tsx', 1], // a registered card may be keyed by a client tool's client kind
  ['react/components/waiting-card.tsx', 1], // a question's call is its carrier tool (ask, intake): its name is not shown
  ['react/state/conversation-store.ts', 1], // the page runs its client tools
  ['react/state/who-decides.ts', 1], // only an approval is decided by votes
  ['views.ts', 1], // a decided approval's view carries its votes
]);

function sources(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return entry.name === 'node_modules' ? [] : sources(path);
    return /\.tsx?$/.test(entry.name) && !/\.test\.tsx?$/.test(entry.name) ? [path] : [];
  });
}

describe('kind names outside src/kinds/', () => {
  const found = new Map<string, number>();
  for (const path of [...sources(src), ...sources(join(src, '../ui/src'))]) {
    const name = relative(src, path).split('\\').join('/');
    if (name.startsWith('kinds/')) continue;
    const count = readFileSync(path, 'utf8').match(testsAKindName)?.length ?? 0;
    if (count > 0) found.set(name, count);
  }

  it('are tested by no new module, and no more often than before', () => {
    const grown = [...found]
      .filter(([name, count]) => count > (stillNamed.get(name) ?? 0))
      .map(([name, count]) => `${name}: ${count} (allowed ${stillNamed.get(name) ?? 0})`);
    expect(grown).toEqual([]);
  });

  it('the list only shrinks: a module that names kinds less often lowers its count here', () => {
    const shrunk = [...stillNamed]
      .filter(([name, count]) => (found.get(name) ?? 0) < count)
      .map(([name]) => `${name}: ${found.get(name) ?? 0}`);
    expect(shrunk).toEqual([]);
  });
});
