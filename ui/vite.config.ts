import { fileURLToPath } from 'node:url';
import react from '@vitejs/plugin-react';
import { defineConfig } from 'vite';

const here = (path: string) => fileURLToPath(new URL(path, import.meta.url));

// The web console `heed serve` serves at `/`: built into dist/ui by `npm run build` (and so by `npm ci`).
export default defineConfig({
  root: here('.'),
  base: '/',
  // Outside node_modules: a write there makes npm's hidden lockfile look stale, and `npx heed` then re-reads the tree.
  cacheDir: here('../.cache/vite-ui'),
  plugins: [react()],
  resolve: {
    alias: [
      { find: /^heed\/react$/, replacement: here('../src/react/index.ts') },
      { find: /^heed\/react\/styles\.css$/, replacement: here('../src/react/styles.css') },
      { find: /^heed\/client$/, replacement: here('../src/client/index.ts') },
    ],
  },
  build: {
    outDir: here('../dist/ui'),
    emptyOutDir: true,
    sourcemap: true,
    chunkSizeWarningLimit: 1024,
  },
  server: {
    // `vite --config ui/vite.config.ts` next to `heed serve --port 3000` for working on the console.
    proxy: { '/api': 'http://127.0.0.1:3000', '/health': 'http://127.0.0.1:3000' },
  },
});
