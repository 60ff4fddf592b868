import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';

const here = import.meta.dirname;
const stylesheet = readFileSync(join(here, 'styles.css'), 'utf8');

/** Every heed-* class name the components write, as a full name or (for `heed-badge-${word}`) a prefix ending in "-". */
function classesUsed(): Map<string, string> {
  const used = new Map<string, string>();
  const folder = join(here, 'components');
  for (const file of readdirSync(folder).filter((name) => name.endsWith('.tsx'))) {
    for (const match of readFileSync(join(folder, file), 'utf8').matchAll(/heed-[a-z0-9_-]+/g))
      used.set(match[0], file);
  }
  return used;
}

describe('heed/react/styles.css', () => {
  it('defines every heed-* class the components use (hooks without styles are named in its opening comment)', () => {
    const used = classesUsed();
    expect(used.size).toBeGreaterThan(40);
    const missing = [...used]
      .filter(([name]) => {
        const escaped = name.replace(/[-_]/g, (char) => `\\${char}`);
        // A prefix such as `heed-badge-` needs at least one class that starts with it; a name needs itself.
        return !new RegExp(name.endsWith('-') ? `\\.${escaped}[a-z0-9_]` : `\\.${escaped}(?![a-z0-9_-])`).test(
          stylesheet,
        );
      })
      .map(([name, file]) => `${name} (${file})`);
    expect(missing).toEqual([]);
  });

  it('takes its colours, radii and fonts from --heed-* variables that have defaults', () => {
    const declared = new Set([...stylesheet.matchAll(/(--heed-[a-z-]+)\s*:/g)].map((match) => match[1]));
    for (const name of ['--heed-accent', '--heed-bg', '--heed-text', '--heed-border', '--heed-radius', '--heed-font'])
      expect(declared).toContain(name);
    // A variable used without a fallback must have a default, or the rule using it would be dropped.
    const bare = [...stylesheet.matchAll(/var\((--heed-[a-z-]+)\)/g)].map((match) => match[1]);
    expect(bare.filter((name) => !declared.has(name))).toEqual([]);
    // Outside the defaults, no colour is written out: each comes from a variable.
    const rules = stylesheet.replace(/\/\*[\s\S]*?\*\//g, '').replace(/:where\(:root\)\s*\{[^}]*\}/, '');
    expect(rules.match(/#[0-9a-f]{3,8}\b/gi) ?? []).toEqual([]);
  });

  it('is exported as heed/react/styles.css and copied into dist by the build', () => {
    const manifest = JSON.parse(readFileSync(join(here, '../../package.json'), 'utf8')) as {
      exports: Record<string, unknown>;
      scripts: Record<string, string>;
    };
    expect(manifest.exports['./react/styles.css']).toBe('./dist/react/styles.css');
    expect(manifest.scripts.build).toContain('npm run build:lib');
    expect(manifest.scripts['build:lib']).toContain("copyFileSync('src/react/styles.css', 'dist/react/styles.css')");
  });
});
