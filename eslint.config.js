import { readFileSync } from 'node:fs';
import importX, { createNodeResolver } from 'eslint-plugin-import-x';
import tseslint from 'typescript-eslint';

/*
 * Few rules on purpose: the layer rule of docs/architecture.md and cheap correctness
 * checks. Formatting is Prettier's. Two type-aware rules, on the library's sources only (where a promise
 * nobody awaits loses an error): they need the type checker, which is most of the lint's time.
 */

/** The layers of docs/architecture.md and the imports that break them today: one list, layers.json, also read by src/architecture.test.ts. */
const { layers: layerList, exceptions } = JSON.parse(readFileSync(new URL('./layers.json', import.meta.url), 'utf8'));
const layers = layerList.map((layer) => layer.paths);

const srcPath = (path) => `./src/${path.replace(/\/$/, '')}`;

/** One zone per source path below the top layer: it may import nothing from the layers above its own. */
const layerZones = layers.slice(0, -1).flatMap((paths, index) => {
  const above = layers.slice(index + 1).flat();
  return paths.flatMap((target) => {
    const allowed = exceptions.filter((exception) => exception.from === target);
    const folderOf = (to) => above.find((path) => path.endsWith('/') && to.startsWith(path));
    const excepted = new Set(allowed.map((exception) => folderOf(exception.to)));
    const message = `src/${target} may import only its own layer and the layers below it (docs/architecture.md).`;
    // A file a lower layer lists inside a folder of a higher one (mcp/config.ts) stays importable.
    const lowerFiles = layers.slice(0, index + 1).flat();
    const zones = above
      .filter((path) => !excepted.has(path))
      .map((path) => {
        const inside = lowerFiles.filter((file) => path.endsWith('/') && file.startsWith(path));
        return {
          target: srcPath(target),
          from: srcPath(path),
          ...(inside.length > 0 ? { except: inside.map((file) => `./${file.slice(path.length)}`) } : {}),
          message,
        };
      });
    for (const folder of excepted) {
      const except = allowed.map((exception) => `./${exception.to.slice(folder.length)}`);
      zones.push({ target: srcPath(target), from: srcPath(folder), except, message });
    }
    return zones;
  });
});

export default [
  { ignores: ['dist/', 'ui/dist/', 'tmp/', '.cache/', '**/*.d.ts', '**/*.d.mts'] },
  {
    files: ['**/*.{js,mjs,ts,tsx,mts}'],
    languageOptions: { parser: tseslint.parser, ecmaVersion: 'latest', sourceType: 'module' },
    // The sources' disable comments for rules left off here (no-explicit-any) are kept for whoever turns them on.
    linterOptions: { reportUnusedDisableDirectives: 'off' },
    plugins: { 'import-x': importX, '@typescript-eslint': tseslint.plugin },
    settings: {
      'import-x/extensions': ['.ts', '.tsx', '.mts', '.js', '.mjs'],
      'import-x/parsers': { '@typescript-eslint/parser': ['.ts', '.tsx', '.mts'] },
      'import-x/resolver-next': [
        createNodeResolver({
          extensions: ['.ts', '.tsx', '.js', '.mjs', '.json'],
          extensionAlias: { '.js': ['.ts', '.tsx', '.js'] },
        }),
      ],
    },
    rules: {
      'no-debugger': 'error',
      'no-dupe-keys': 'error',
      'no-dupe-else-if': 'error',
      'no-duplicate-case': 'error',
      'no-self-assign': 'error',
      'no-self-compare': 'error',
      'no-unsafe-finally': 'error',
      'no-unreachable': 'error',
      'no-cond-assign': 'error',
      'no-constant-binary-expression': 'error',
      'no-sparse-arrays': 'error',
      'use-isnan': 'error',
      'valid-typeof': 'error',
      'import-x/no-self-import': 'error',
      'prefer-const': 'error',
      // A leading underscore names what is left out on purpose (`{ id: _id, ...rest }`, an unused parameter).
      '@typescript-eslint/no-unused-vars': [
        'error',
        { argsIgnorePattern: '^_', varsIgnorePattern: '^_', ignoreRestSiblings: true, caughtErrors: 'none' },
      ],
    },
  },
  {
    // A promise left floating, or passed where a callback's result is ignored, loses its rejection:
    // await it, return it, or say why not with `void` and a comment.
    files: ['src/**/*.{ts,tsx}'],
    ignores: ['src/**/*.test.{ts,tsx}', 'src/store/store-contract.ts', 'src/channels/chat-sdk/state-contract.ts'],
    // The build's program (src/ without tests) rather than tsconfig.json's (tests, bench, ui too): a smaller one is faster.
    languageOptions: { parserOptions: { project: './tsconfig.build.json', tsconfigRootDir: import.meta.dirname } },
    rules: {
      '@typescript-eslint/no-floating-promises': 'error',
      '@typescript-eslint/no-misused-promises': 'error',
    },
  },
  {
    // The layer rule checks library sources; tests beside them may build a whole Heed.
    files: ['src/**/*.{ts,tsx}'],
    ignores: ['src/**/*.test.{ts,tsx}'],
    rules: { 'import-x/no-restricted-paths': ['error', { zones: layerZones }] },
  },
];
