import { fileURLToPath } from 'node:url';
import { defineConfig } from 'vitest/config';

const src = (path: string) => fileURLToPath(new URL(`./src/${path}`, import.meta.url));

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
    include: ['src/**/*.test.ts', 'src/**/*.test.tsx', 'test/**/*.test.ts'],
    // Chromium, PostgreSQL, one temp folder for the run and a fresh console build: test/setup/prepare.ts.
    globalSetup: ['test/setup/global-setup.ts'],
    testTimeout: 20_000,
    // expect.poll waits for what a user would see; a second (the default) is too short on two busy cores.
    expect: { poll: { timeout: 10_000 } },
    pool: 'forks',
  },
});
