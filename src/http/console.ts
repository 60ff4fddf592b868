import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { extname, join, posix, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Hono } from 'hono';
import type { AppEnv } from './route.js';

/** Where `npm run build` puts the web console: `dist/ui` of the package (from `src/http` and `dist/http` alike). */
export function defaultConsoleDir(): string {
  return fileURLToPath(new URL('../../dist/ui/', import.meta.url));
}

/** True when `dir` holds a built console. */
export function hasConsole(dir: string): boolean {
  return existsSync(join(dir, 'index.html'));
}

const TYPES: Record<string, string> = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.map': 'application/json; charset=utf-8',
  '.json': 'application/json; charset=utf-8',
  '.webmanifest': 'application/manifest+json; charset=utf-8',
  '.svg': 'image/svg+xml',
  '.png': 'image/png',
  '.ico': 'image/x-icon',
  '.woff2': 'font/woff2',
  '.txt': 'text/plain; charset=utf-8',
};

// The console only talks to its own origin; nothing else may load or frame it.
const SECURITY_HEADERS = {
  'content-security-policy':
    "default-src 'self'; script-src 'self'; style-src 'self' 'unsafe-inline'; img-src 'self' data:; connect-src 'self'; " +
    "frame-ancestors 'none'; base-uri 'none'; form-action 'self'; object-src 'none'",
  'x-content-type-options': 'nosniff',
  'referrer-policy': 'no-referrer',
  'x-frame-options': 'DENY',
};

/**
 * Serves the built web console at `/`: its files, and `index.html` for any other page path (the
 * console routes in the browser). No path under `/api`, `/auth` or `/health` is ever answered here (but the
 * device approval page, `/auth/device`): an unknown one is a JSON 404, never the console's page with 200 (which a load balancer would read as ready).
 */
export function mountConsole(app: Hono<AppEnv>, dir: string): void {
  // Read once, at start, into a fixed map: the files of a build never change while the server runs,
  // and a request for a path that is not there reads nothing and stores nothing.
  const files = loadFiles(resolve(dir));

  app.on(['GET', 'HEAD'], '*', async (c, next) => {
    const path = c.req.path;
    if (isServerPath(path)) return next();
    let relative: string;
    try {
      relative = decodeURIComponent(path);
    } catch {
      return next();
    }
    relative = posix.normalize(relative);
    if (isServerPath(relative)) return next();
    const asset = relative !== '/' ? files.get(relative) : undefined;
    if (asset) {
      const immutable = relative.startsWith('/assets/');
      return new Response(c.req.method === 'HEAD' ? null : (asset.body as BodyInit), {
        headers: {
          'content-type': asset.type,
          'cache-control': immutable ? 'public, max-age=31536000, immutable' : 'no-cache',
          ...SECURITY_HEADERS,
        },
      });
    }
    // A missing file with an extension is a 404; any other path is a page of the console.
    if (extname(relative) !== '') return next();
    const index = files.get('/index.html');
    if (!index) return next();
    return new Response(c.req.method === 'HEAD' ? null : (index.body as BodyInit), {
      headers: { 'content-type': index.type, 'cache-control': 'no-cache', ...SECURITY_HEADERS },
    });
  });
}

/** The server's own path prefixes: its answers there are JSON, the console's page never. */
const SERVER_PREFIXES = ['/api', '/auth', '/health'];
/** The console's pages under them, by design (DESIGN.md §18): the device approval a terminal's sign-in links to. */
const CONSOLE_PAGES = new Set(['/auth/device']);

function isServerPath(path: string): boolean {
  if (CONSOLE_PAGES.has(path)) return false;
  return SERVER_PREFIXES.some((prefix) => path === prefix || path.startsWith(`${prefix}/`));
}

interface Asset {
  body: Uint8Array;
  type: string;
}

/** Every file under `root`, by its URL path (`/assets/app.js`). */
function loadFiles(root: string): Map<string, Asset> {
  const files = new Map<string, Asset>();
  const walk = (folder: string, prefix: string) => {
    let entries;
    try {
      entries = readdirSync(folder, { withFileTypes: true });
    } catch {
      // A folder that cannot be read serves nothing from it; the console answers 404 for those paths.
      return;
    }
    for (const entry of entries) {
      const path = join(folder, entry.name);
      if (entry.isDirectory()) walk(path, `${prefix}${entry.name}/`);
      else if (entry.isFile())
        files.set(`${prefix}${entry.name}`, {
          body: readFileSync(path),
          type: TYPES[extname(entry.name)] ?? 'application/octet-stream',
        });
    }
  };
  walk(root, '/');
  return files;
}
