// An app that embeds heed/react gets styled cards: the built package (dist/, found through package.json's
// `exports`) and its stylesheet alone, in a bare page, themed by --heed-* variables.
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { browserSkip, openBrowser } from './harness.js';

const root = join(import.meta.dirname, '../..');
const manifest = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as {
  exports: { './react': { import: string }; './react/styles.css': string };
};
const builtCode = join(root, manifest.exports['./react'].import);
const builtStyles = join(root, manifest.exports['./react/styles.css']);

/** The embedding app (test/browser/embed/app.ts) bundled against the built package; returns its JS and CSS. */
async function bundleApp(outDir: string): Promise<{ js: string; css: string }> {
  const { build } = await import('vite');
  await build({
    configFile: false,
    logLevel: 'warn',
    root: join(import.meta.dirname, 'embed'),
    resolve: {
      alias: [
        { find: /^heed\/react$/, replacement: builtCode },
        { find: /^heed\/react\/styles\.css$/, replacement: builtStyles },
      ],
    },
    define: { 'process.env.NODE_ENV': '"production"' },
    build: {
      outDir,
      emptyOutDir: true,
      minify: false,
      cssMinify: false,
      rolldownOptions: {
        input: join(import.meta.dirname, 'embed/app.ts'),
        output: { entryFileNames: 'app.js', assetFileNames: '[name][extname]' },
      },
    },
  });
  const files = readdirSync(outDir);
  const css = files.find((name) => name.endsWith('.css'));
  return { js: readFileSync(join(outDir, 'app.js'), 'utf8'), css: css ? readFileSync(join(outDir, css), 'utf8') : '' };
}

describe.skipIf(browserSkip)('heed/react/styles.css in an embedding app', () => {
  let browser: Browser;
  let app: { js: string; css: string };
  const outDir = mkdtempSync(join(tmpdir(), 'heed-embed-'));

  beforeAll(async () => {
    // The built package: test/setup/built-cli.ts runs `npm run build:lib` (tsc, then the copy of the
    // stylesheet) when dist/ is older than src/, so a build that forgets the copy fails here.
    expect(existsSync(builtCode) && existsSync(builtStyles)).toBe(true);
    app = await bundleApp(outDir);
    browser = await openBrowser();
  }, 180_000);

  afterAll(async () => {
    await browser?.close();
    rmSync(outDir, { recursive: true, force: true });
  });

  /** A bare page (no style of its own unless `pageStyle`) that loads the app from a made-up origin. */
  async function openApp(pageStyle = ''): Promise<Page> {
    const page = await browser.newPage({ viewport: { width: 800, height: 600 } });
    const files: Record<string, [string, string]> = {
      '/': [
        'text/html',
        `<!doctype html><html><head><style>${pageStyle}</style><link rel="stylesheet" href="/app.css"></head><body><div id="root"></div><script type="module" src="/app.js"></script></body></html>`,
      ],
      '/app.js': ['text/javascript', app.js],
      '/app.css': ['text/css', app.css],
    };
    await page.route('http://embed.test/**', (route) => {
      const [contentType, body] = files[new URL(route.request().url()).pathname] ?? ['text/plain', ''];
      return route.fulfill({ status: body ? 200 : 404, contentType, body });
    });
    await page.goto('http://embed.test/');
    await page.getByRole('button', { name: 'Allow' }).waitFor();
    return page;
  }

  const styleOf = (page: Page, selector: string, properties: string[]) =>
    page.locator(selector).evaluate((element, names) => {
      const style = getComputedStyle(element);
      return Object.fromEntries(names.map((name) => [name, style.getPropertyValue(name)]));
    }, properties);

  it('the card is styled by the stylesheet alone: border, radius, background, font and the primary button', async () => {
    expect(app.css).toContain('--heed-accent');
    const page = await openApp();
    expect(
      await styleOf(page, '.heed-card', [
        'border-top-width',
        'border-top-style',
        'border-top-color',
        'border-top-left-radius',
        'background-color',
        'box-sizing',
      ]),
    ).toEqual({
      'border-top-width': '1px',
      'border-top-style': 'solid',
      'border-top-color': 'rgb(197, 204, 216)',
      'border-top-left-radius': '14px',
      'background-color': 'rgb(255, 255, 255)',
      'box-sizing': 'border-box',
    });
    expect((await styleOf(page, '.heed-card', ['font-family']))['font-family']).toMatch(/^system-ui/);
    expect(await styleOf(page, '.heed-primary', ['background-color', 'color'])).toEqual({
      'background-color': 'rgb(47, 95, 208)',
      color: 'rgb(255, 255, 255)',
    });
    expect((await styleOf(page, '.heed-args', ['display']))['display']).toBe('grid');
    await page.close();
  });

  it('setting --heed-accent on the page recolours the primary button, and its hover shade follows', async () => {
    const page = await openApp();
    await page.evaluate(() => document.documentElement.style.setProperty('--heed-accent', 'rgb(200, 0, 100)'));
    expect((await styleOf(page, '.heed-primary', ['background-color']))['background-color']).toBe('rgb(200, 0, 100)');
    await page.getByRole('button', { name: 'Allow' }).hover();
    const hovered = (await styleOf(page, '.heed-primary', ['background-color']))['background-color'];
    // A darker shade of the new accent, not the default blue's.
    expect(hovered).not.toBe('rgb(200, 0, 100)');
    expect(hovered).not.toMatch(/rgb\(39, 79, 176\)/);
    const [red, green, blue] = (hovered.match(/[\d.]+/g) ?? [])
      .map(Number)
      .map((part) => (part <= 1 && hovered.startsWith('color(') ? part * 255 : part));
    expect(red).toBeGreaterThan(blue);
    expect(green).toBeLessThan(10);
    await page.close();
  });

  it("an app's own :root variables win over the defaults, even when its stylesheet loads first", async () => {
    const page = await openApp(
      ':root { --heed-radius: 3px; --heed-bg: rgb(250, 240, 230); --heed-font: Georgia, serif; }',
    );
    expect(await styleOf(page, '.heed-card', ['border-top-left-radius', 'background-color', 'font-family'])).toEqual({
      'border-top-left-radius': '3px',
      'background-color': 'rgb(250, 240, 230)',
      'font-family': 'Georgia, serif',
    });
    await page.close();
  });
});
