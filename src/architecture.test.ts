import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';

/*
 * The layer rule of docs/architecture.md, checked on every import (type-only ones too) of every source
 * file under src/ (tests are exempt: they may build a whole Heed). A module may import its own layer
 * and the layers below it, never one above.
 */

const src = dirname(fileURLToPath(import.meta.url));

/**
 * Bottom up (layers.json, which eslint.config.js reads too). The first entry whose prefix a file's path
 * (relative to src/) starts with gives its layer. The exceptions break the rule today; the list only
 * shrinks: the test also fails when one no longer happens, so a fixed one is taken off.
 */
const { layers, exceptions } = JSON.parse(readFileSync(join(src, '..', 'layers.json'), 'utf8')) as {
  layers: Array<{ name: string; paths: string[] }>;
  exceptions: Array<{ from: string; to: string; removedBy: string }>;
};
const knownExceptions = new Set(exceptions.map(({ from, to }) => `${from} -> ${to}`));

function layerOf(path: string): number {
  const index = layers.findIndex((layer) => layer.paths.some((prefix) => path === prefix || path.startsWith(prefix)));
  if (index < 0) throw new Error(`src/${path} is in no layer: add it to the layers of src/architecture.test.ts.`);
  return index;
}

function sourceFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return sourceFiles(path);
    return /\.tsx?$/.test(entry.name) && !/\.test\.tsx?$/.test(entry.name) && !entry.name.endsWith('.d.ts')
      ? [path]
      : [];
  });
}

/** Every relative import of every source file, as paths relative to src/ (`engine/settle.ts`). */
function imports(): Array<{ from: string; to: string }> {
  const all: Array<{ from: string; to: string }> = [];
  for (const file of sourceFiles(src)) {
    const { importedFiles } = ts.preProcessFile(readFileSync(file, 'utf8'), true, true);
    for (const { fileName } of importedFiles) {
      if (!fileName.startsWith('.')) continue;
      const target = resolve(dirname(file), fileName).replace(/\.js$/, '');
      const known = ['.ts', '.tsx', '/index.ts']
        .map((ext) => target + ext)
        .find((path) => sourceFiles(dirname(path)).includes(path));
      all.push({ from: relative(src, file), to: relative(src, known ?? target) });
    }
  }
  return all;
}

describe('layers', () => {
  const edges = imports();

  it('finds the imports it checks', () => {
    expect(edges.length).toBeGreaterThan(300);
    expect(edges.every(({ to }) => !to.startsWith('..'))).toBe(true);
  });

  it('no module imports a layer above its own', () => {
    const upward = edges
      .filter(({ from, to }) => layerOf(to) > layerOf(from))
      .map(({ from, to }) => `${from} -> ${to}`)
      .filter((edge) => !knownExceptions.has(edge));
    expect([...new Set(upward)]).toEqual([]);
  });

  it('protocol and kinds import nothing from engine, http or cli', () => {
    const pure = edges.filter(({ from }) => /^(protocol|kinds)\//.test(from));
    expect(pure.filter(({ to }) => /^(engine|http|cli)\//.test(to))).toEqual([]);
  });

  it('outside heed.ts only tests reach the Engine through engineOf (the HTTP app uses hooksOf)', () => {
    const callers = sourceFiles(src)
      .filter((file) => readFileSync(file, 'utf8').includes('engineOf'))
      .map((file) => relative(src, file));
    expect(callers).toEqual(['heed.ts']);
  });

  it('the HTTP layer reads past the public Heed once, when the app is made; routes get that surface as host', () => {
    const readers = sourceFiles(src)
      .filter((file) => !file.includes('.test.') && /hooksOf\(/.test(readFileSync(file, 'utf8')))
      .map((file) => relative(src, file))
      .sort();
    // heed.ts defines it; heed serve sets the answer links' fallback address on the notifier.
    expect(readers).toEqual(['cli/serve.ts', 'heed.ts', 'http/app.ts']);
  });

  it('the known exceptions still happen (fixed ones are taken off the list)', () => {
    const happening = new Set(edges.map(({ from, to }) => `${from} -> ${to}`));
    expect([...knownExceptions].filter((edge) => !happening.has(edge))).toEqual([]);
  });
});

/*
 * The one write path of docs/architecture.md: only the runner (src/engine/transact.ts) calls a store's
 * `commit`; the stores themselves define it. Writers not yet moved onto `transact` call the runner's
 * `commitWrite`; their list only shrinks (the test also fails when one no longer does).
 */
describe('the one write path', () => {
  const runner = 'engine/transact.ts';
  const files = sourceFiles(src).map((file) => ({ path: relative(src, file), text: readFileSync(file, 'utf8') }));

  it("no module outside the runner calls the store's commit", () => {
    const callers = files
      .filter(({ path, text }) => path !== runner && !path.startsWith('store/') && /\.commit\(/.test(text))
      .map(({ path }) => path);
    expect(callers).toEqual([]);
  });

  it('only the known writers, not yet deciders, go around transact', () => {
    const around = files
      .filter(({ path, text }) => path !== runner && /\bcommitWrite\(/.test(text))
      .map(({ path }) => path);
    expect(around.sort()).toEqual([
      'engine/regenerate.ts',
      'engine/start.ts',
      'engine/turn/turn.ts',
      'heed.ts',
      'hooks.ts',
    ]);
  });
});

/*
 * A non-null assertion (`value!`) tells the compiler something it cannot check. Source states it instead:
 * a check that throws a sentence (`must` in src/errors.ts), a value returned from where it is made, or a type
 * that carries it. The few left stay under one per 1,000 lines (issue 27).
 */
describe('non-null assertions', () => {
  it('stay under one per 1,000 lines of source', () => {
    let assertions = 0;
    let lines = 0;
    const where: string[] = [];
    for (const file of sourceFiles(src)) {
      const text = readFileSync(file, 'utf8');
      lines += text.split('\n').length;
      const kind = file.endsWith('.tsx') ? ts.ScriptKind.TSX : ts.ScriptKind.TS;
      const source = ts.createSourceFile(file, text, ts.ScriptTarget.Latest, true, kind);
      const visit = (node: ts.Node): void => {
        if (ts.isNonNullExpression(node)) {
          assertions++;
          const { line } = source.getLineAndCharacterOfPosition(node.getStart(source));
          where.push(`src/${relative(src, file)}:${line + 1}`);
        }
        ts.forEachChild(node, visit);
      };
      visit(source);
    }
    expect(lines).toBeGreaterThan(1000);
    expect((assertions / lines) * 1000, `${assertions} in ${lines} lines:\n${where.join('\n')}`).toBeLessThan(1);
  });
});

/*
 * No import cycles among the library's and the console's modules (a cycle makes the order modules run in
 * depend on which one is imported first). Only imports that remain at run time count: `import type` and
 * `export type` are erased by the compiler. Checked here, on the same parse as the layers, rather than by a
 * lint rule that resolved every import of every file again (half of `eslint .`'s time).
 */
describe('import cycles', () => {
  const ui = join(src, '..', 'ui', 'src');

  /** The run-time imports of each source file, as absolute paths of other source files. */
  function runtimeGraph(): Map<string, string[]> {
    const files = [...sourceFiles(src), ...sourceFiles(ui)];
    const known = new Set(files);
    const graph = new Map<string, string[]>();
    for (const file of files) {
      const kind = file.endsWith('.tsx') ? ts.ScriptKind.TSX : ts.ScriptKind.TS;
      const source = ts.createSourceFile(file, readFileSync(file, 'utf8'), ts.ScriptTarget.Latest, false, kind);
      const targets: string[] = [];
      const add = (specifier: ts.Expression | undefined) => {
        if (!specifier || !ts.isStringLiteral(specifier) || !specifier.text.startsWith('.')) return;
        const base = resolve(dirname(file), specifier.text).replace(/\.js$/, '');
        const target = [base, `${base}.ts`, `${base}.tsx`, join(base, 'index.ts')].find((path) => known.has(path));
        if (target) targets.push(target);
      };
      const visit = (node: ts.Node): void => {
        if (ts.isImportDeclaration(node) && !node.importClause?.isTypeOnly) add(node.moduleSpecifier);
        else if (ts.isExportDeclaration(node) && !node.isTypeOnly) add(node.moduleSpecifier);
        else if (ts.isCallExpression(node) && node.expression.kind === ts.SyntaxKind.ImportKeyword) {
          add(node.arguments[0]);
        }
        ts.forEachChild(node, visit);
      };
      visit(source);
      graph.set(file, targets);
    }
    return graph;
  }

  /** Each cycle once, as `a.ts -> b.ts -> a.ts` (Tarjan's strongly connected components of more than one module, or one importing itself). */
  function cycles(graph: Map<string, string[]>): string[] {
    const index = new Map<string, number>();
    const low = new Map<string, number>();
    const stack: string[] = [];
    const onStack = new Set<string>();
    const found: string[] = [];
    const connect = (node: string): void => {
      index.set(node, index.size);
      low.set(node, index.get(node)!);
      stack.push(node);
      onStack.add(node);
      for (const next of graph.get(node) ?? []) {
        if (!index.has(next)) {
          connect(next);
          low.set(node, Math.min(low.get(node)!, low.get(next)!));
        } else if (onStack.has(next)) low.set(node, Math.min(low.get(node)!, index.get(next)!));
      }
      if (low.get(node) !== index.get(node)) return;
      const component: string[] = [];
      let member: string;
      do {
        member = stack.pop()!;
        onStack.delete(member);
        component.push(member);
      } while (member !== node);
      if (component.length > 1 || graph.get(node)!.includes(node)) {
        found.push(component.map((path) => relative(join(src, '..'), path)).join(' <-> '));
      }
    };
    for (const node of graph.keys()) if (!index.has(node)) connect(node);
    return found;
  }

  it('finds the run-time imports it checks', () => {
    const graph = runtimeGraph();
    expect([...graph.values()].flat().length).toBeGreaterThan(300);
    expect(
      cycles(
        new Map([
          ['a', ['b']],
          ['b', ['c']],
          ['c', ['a']],
          ['d', ['a']],
        ]),
      ),
    ).toEqual(['c <-> b <-> a']);
  });

  it('no module imports itself through others', () => {
    expect(cycles(runtimeGraph())).toEqual([]);
  });
});
