/**
 * The published declarations (dist/*.d.ts, what `import ... from 'heed'` type-checks against in a
 * user's project) accept AI SDK 7 models as well as AI SDK 6 ones, with no cast: ai-sdk-consumer.ts is
 * compiled by the TypeScript compiler with `heed` mapped to dist/. The build runs first when dist/ is
 * missing or older than the sources.
 */
import { execFileSync } from 'node:child_process';
import { existsSync, readdirSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';
import ts from 'typescript';
import { beforeAll, describe, expect, it } from 'vitest';

const root = join(import.meta.dirname, '../..');

function newest(path: string): number {
  const stat = statSync(path);
  if (!stat.isDirectory()) return path.endsWith('.test.ts') ? 0 : stat.mtimeMs;
  return readdirSync(path).reduce((latest, name) => Math.max(latest, newest(join(path, name))), 0);
}

function buildWhenStale(): void {
  const built = join(root, 'dist/index.d.ts');
  if (existsSync(built) && statSync(built).mtimeMs >= newest(join(root, 'src'))) return;
  try {
    execFileSync(process.execPath, [join(root, 'node_modules/typescript/bin/tsc'), '-p', 'tsconfig.build.json'], {
      cwd: root,
      stdio: 'pipe',
    });
  } catch {
    // Type errors elsewhere in the tree still emit declarations; the check below reads what was emitted.
  }
}

/** Errors in the consumer's file and in Heed's declarations (not in other packages' own .d.ts). */
function consumerErrors(): string[] {
  const configPath = join(root, 'test/types/tsconfig.consumer.json');
  const { config } = ts.readConfigFile(configPath, ts.sys.readFile);
  const parsed = ts.parseJsonConfigFileContent(config, ts.sys, join(root, 'test/types'));
  const program = ts.createProgram({ rootNames: parsed.fileNames, options: parsed.options });
  return ts
    .getPreEmitDiagnostics(program)
    .filter((diagnostic) => {
      const file = diagnostic.file?.fileName ?? '';
      return !file.includes('/node_modules/');
    })
    .map((diagnostic) => {
      const where = diagnostic.file
        ? `${relative(root, diagnostic.file.fileName)}:${diagnostic.file.getLineAndCharacterOfPosition(diagnostic.start ?? 0).line + 1}`
        : '';
      return `${where} ${ts.flattenDiagnosticMessageText(diagnostic.messageText, '\n')}`;
    });
}

describe('published types', () => {
  beforeAll(buildWhenStale, 240_000);

  it(
    'a project passing an @ai-sdk/openai@4 model and a MockLanguageModelV4 (and AI SDK 6 models) to createHeed compiles with no cast',
    { timeout: 120_000 },
    () => {
      expect(consumerErrors()).toEqual([]);
    },
  );

  it('the declarations name only packages a user has: heed dependencies', () => {
    const pkg = JSON.parse(ts.sys.readFile(join(root, 'package.json'))!) as {
      dependencies: Record<string, string>;
      peerDependencies: Record<string, string>;
    };
    // The package itself is there too (doc comments show `import … from 'heed'`).
    const allowed = new Set(['heed', ...Object.keys(pkg.dependencies), ...Object.keys(pkg.peerDependencies ?? {})]);
    const named = new Set<string>();
    const walk = (dir: string) => {
      for (const name of readdirSync(dir)) {
        const path = join(dir, name);
        if (statSync(path).isDirectory()) walk(path);
        else if (name.endsWith('.d.ts')) {
          for (const match of ts.sys.readFile(path)!.matchAll(/(?:from|import\()\s*['"]([^'".][^'"]*)['"]/g)) {
            const spec = match[1];
            if (spec.startsWith('node:')) continue;
            named.add(spec.startsWith('@') ? spec.split('/').slice(0, 2).join('/') : spec.split('/')[0]);
          }
        }
      }
    };
    walk(join(root, 'dist'));
    expect([...named].filter((name) => !allowed.has(name)).sort()).toEqual([]);
    expect(named.has('@ai-sdk/provider-v4')).toBe(true);
  });
});
