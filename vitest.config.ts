import { fileURLToPath } from 'node:url';
import { defineConfig } from 'vitest/config';

const src = (path: string) => fileURLToPath(new URL(`./src/${path}`, import.meta.url));

export default defineConfig({
  resolve: {
    // Tests import the package by its public names, straight from the sources.
    alias: [
      { find: /^heed\/testing$/, replacement: src('testing/index.ts') },
      { find: /^heed\/client$/, replacement: src('client/index.ts') },
      { find: /^heed\/react$/, replacement: src('react/index.ts') },
      { find: /^heed$/, replacement: src('index.ts') },
    ],
  },
  test: {
    include: ['src/**/*.test.ts', 'test/**/*.test.ts'],
    // The browser tests (test/browser) drive the built web console: build it first when it is stale.
    globalSetup: ['test/browser/build-console.ts'],
    testTimeout: 20_000,
    pool: 'forks',
  },
});
