import { createRequire } from 'node:module';
import { HeedError } from './errors.js';

/**
 * The libraries a user may not need (a database driver, Slack, mail, MCP) are optional peer
 * dependencies, loaded only when the config names them (docs/deploy.md, "What `import 'heed'` loads").
 * When one is missing, the start fails with `missing_dependency` and the `npm i` line to run.
 */

/** Whether `error` says that `name` itself (not some module it imports) could not be found. */
function isMissing(error: unknown, name: string): boolean {
  const code = (error as { code?: unknown } | null)?.code;
  if (code !== 'ERR_MODULE_NOT_FOUND' && code !== 'MODULE_NOT_FOUND') return false;
  const message = error instanceof Error ? error.message : '';
  return [`'${name}'`, `'${name}/`, `"${name}"`, `/node_modules/${name}/`].some((part) => message.includes(part));
}

/** The error a start fails with when `name` is not installed; `feature` says what needed it. */
export function missingDependency(name: string, feature: string, cause?: unknown): HeedError {
  const install = `npm i ${name}`;
  return new HeedError(
    'missing_dependency',
    `${feature} needs the package ${name}, which is not installed. Run: ${install}`,
    {
      details: { package: name, install },
      cause,
    },
  );
}

/**
 * `import(name)`, failing with `missing_dependency` when it is not installed. `specifier` may be a
 * subpath of `name` (`@modelcontextprotocol/sdk/client/index.js`).
 */
export async function importOptional<T>(name: string, feature: string, specifier: string = name): Promise<T> {
  try {
    return (await import(specifier)) as T;
  } catch (error) {
    throw isMissing(error, name) ? missingDependency(name, feature, error) : error;
  }
}

/**
 * `require(name)` for a CommonJS library that a synchronous call needs (better-sqlite3, nodemailer).
 * With `resolveOnly`, only checks that it is installed (so the start fails, not the first request);
 * `specifier` is what to resolve, for a package with no root entry (`@modelcontextprotocol/sdk/server/mcp.js`).
 */
export function requireOptional<T>(
  name: string,
  feature: string,
  options: { resolveOnly?: boolean; specifier?: string } = {},
): T {
  try {
    const require = createRequire(import.meta.url);
    if (options.resolveOnly) {
      require.resolve(options.specifier ?? name);
      return undefined as T;
    }
    return require(name) as T;
  } catch (error) {
    throw isMissing(error, name) ? missingDependency(name, feature, error) : error;
  }
}
