import { fileURLToPath } from 'node:url';
import { defineConfig } from 'vitest/config';
import CostliestFirst from './test/setup/sequencer.js';

const src = (path: string) => fileURLToPath(new URL(`./src/${path}`, import.meta.url));

/**
 * The suite in four projects by cost (docs/testing.md). A file's name or folder says where it runs:
 *
 * - unit: `src/**\/*.test.ts(x)`: pure code and the app called in process; no set-up, no socket, no process.
 * - http: `src/**\/*.http.test.ts(x)`: a server in this process (`serve()`), called in process where it can
 *   be and over loopback where the socket is the point (streams, disconnects, limits, clients).
 * - integration: `src/**\/*.pg.test.ts` and `test/`: PostgreSQL, several instances, channel fakes, processes.
 * - e2e: Chromium (`test/browser/`), faults (`test/faults/`), restarts and crashes, the terminal (tmux),
 *   the fresh clone and the published types.
 */
const e2e = [
  'test/browser/**/*.test.ts',
  'test/faults/**/*.test.ts',
  'test/**/*-restart.test.ts',
  'test/crash*.test.ts',
  'test/inbox-*terminal*.test.ts',
  'test/fresh-clone.test.ts',
  'test/types/**/*.test.ts',
];

// One queue for all four projects, four files at a time: the suite waits on servers, browsers, child
// processes and the fault tests' scenarios more than it computes, and a file that waits leaves its core to
// the next. The sequencer starts e2e files first, the longest of them first, so that the end of a run is
// short unit files. Measured (docs/testing.md): 4 in one queue beat e2e alone at 2 then the rest at 3.
// HEED_TEST_WORKERS sets it (say 1 to read one file's output in order).
const workers = Number(process.env.HEED_TEST_WORKERS) || undefined;

export default defineConfig({
  // Outside node_modules: a write there makes npm's hidden lockfile look stale, and `npx heed` then re-reads the tree.
  cacheDir: '.cache/vite',
  resolve: {
    // Tests import the package by its public names, straight from the sources.
    alias: [
      { find: /^heed\/server$/, replacement: src('server.ts') },
      { find: /^heed\/testing$/, replacement: src('testing/index.ts') },
      { find: /^heed\/client$/, replacement: src('client/index.ts') },
      { find: /^heed\/react$/, replacement: src('react/index.ts') },
      { find: /^heed\/demo$/, replacement: src('demo/index.ts') },
      { find: /^heed\/langgraph$/, replacement: src('langgraph/index.ts') },
      { find: /^heed\/openai-agents$/, replacement: src('openai-agents/index.ts') },
      { find: /^heed$/, replacement: src('index.ts') },
    ],
  },
  test: {
    testTimeout: 20_000,
    // expect.poll waits for what a user would see; a second (the default) is too short on two busy cores.
    expect: { poll: { timeout: 10_000 } },
    pool: 'forks',
    maxWorkers: workers ?? 4,
    // One module graph per worker, not one per file: a file shares nothing with the next but what both import.
    isolate: false,
    sequence: { sequencer: CostliestFirst },
    projects: [
      {
        extends: true,
        test: {
          name: 'unit',
          include: ['src/**/*.test.ts', 'src/**/*.test.tsx'],
          exclude: ['src/**/*.http.test.ts', 'src/**/*.http.test.tsx', 'src/**/*.pg.test.ts'],
          setupFiles: ['test/setup/unit-guard.ts'],
        },
      },
      {
        extends: true,
        test: {
          name: 'http',
          include: ['src/**/*.http.test.ts', 'src/**/*.http.test.tsx'],
          globalSetup: ['test/setup/run-folder.ts'],
        },
      },
      {
        extends: true,
        test: {
          name: 'integration',
          include: ['src/**/*.pg.test.ts', 'test/**/*.test.ts'],
          exclude: e2e,
          globalSetup: ['test/setup/database.ts', 'test/setup/built-cli.ts'],
        },
      },
      {
        extends: true,
        test: {
          name: 'e2e',
          include: e2e,
          // A deadline, not a wait: a page or a restart on two busy cores can take longer than 20 s.
          testTimeout: 60_000,
          globalSetup: [
            'test/setup/database.ts',
            'test/setup/built-cli.ts',
            'test/setup/browser.ts',
            'test/setup/tmux.ts',
          ],
        },
      },
    ],
  },
});
