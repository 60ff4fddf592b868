/**
 * `heed/server`: Heed over HTTP. Kept apart from `heed` so that `import 'heed'` loads no HTTP server
 * (Hono, @hono/node-server) for a process that only uses the library (docs/deploy.md).
 *
 * @example
 * import { createHeed } from 'heed';
 * import { createFetch } from 'heed/server';
 * const fetch = createFetch(createHeed({ agents }));
 */
export { createApp, createFetch } from './http/app.js';
export type { AppOptions, HeedApp } from './http/app.js';
export { serve } from './cli/serve.js';
export type { RunningServer, ServeOptions } from './cli/serve.js';
