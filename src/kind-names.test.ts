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
  ['http/ai-sdk/ui-messages.ts', 8], // the AI SDK tool parts differ by kind (approval parts vs tool output)
  ['../ui/src/pages/inbox.tsx', 8],
  ['../ui/src/pages/answer-link.tsx', 7],
  ['engine/turn/tool-context.ts', 6], // ctx.ask/approve/askLive build the request of their own kind
  ['channels/slack/blocks.ts', 5],
  ['cli/inbox/format.ts', 5],
  ['react/components/settled-card.tsx', 5],
  ['cli/inbox/detail-pane.tsx', 4],
  ['engine/turn/tool-calls.ts', 4], // the model's built-in ask tool raises a question
  ['cli/inbox/inbox-state.ts', 3],
  ['mcp/sampling.ts', 3], // an MCP request becomes an approval or a question
  ['mcp/elicitation.ts', 2], // an MCP elicitation becomes a question or a url request
  ['mcp/setup.ts', 2], // an MCP request becomes an approval or a question
  ['react/state/transcript.ts', 2],
  ['channels/slack/interactions.ts', 1],
  ['cli/demo-server.ts', 1],
  ['cli/inbox/outcome.tsx', 1],
  ['cli/inbox/question-state.ts', 1],
  ['demo/seed.ts', 1],
  ['engine/decide/lapse.ts', 1],
  ['engine/decide/settle.ts', 1],
  ['heed.ts', 1],
  ['http/ai-sdk/ui-stream.ts', 1],
  ['react/components/tool-cards.tsx', 1],
  ['react/components/waiting-card.tsx', 1],
  ['react/state/conversation-store.ts', 1],
  ['react/state/who-decides.ts', 1],
  ['views.ts', 1],
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
