import { execFileSync } from 'node:child_process';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { cpus, platform, release } from 'node:os';
import { fileURLToPath, pathToFileURL } from 'node:url';

/**
 * `npm run bench:import [-- --baseline <dist dir>]`: what `import('heed')` costs, from the built dist/
 * (run `npm run build` first). Each figure is taken in fresh `node` processes: the time the import takes
 * (median of the runs) and the modules it loads (ES modules through a loader hook, CommonJS ones through
 * require's cache), with the optional libraries among them (a database driver, chat, mail, MCP, HTTP server).
 * With `--baseline`, the same figures for another build (say, an older commit's dist copied aside, inside
 * this checkout so that it finds node_modules/) are measured in the same run, alternating, with ratios.
 * Writes its section of bench/RESULTS.md between the import-cost markers; `npm run bench` keeps it.
 */

const runs = Number(process.env.HEED_BENCH_IMPORT_RUNS ?? 21);
const current = fileURLToPath(new URL('../dist/index.js', import.meta.url));
const baselineDir = flag('--baseline');
const baseline = baselineDir
  ? fileURLToPath(new URL('index.js', pathToFileURL(`${baselineDir.replace(/\/$/, '')}/`)))
  : undefined;

/** The libraries a user may not need; loading any of them at `import 'heed'` is what this measures. */
const optional = [
  'better-sqlite3',
  'pg',
  '@slack/web-api',
  '@slack/bolt',
  'nodemailer',
  '@modelcontextprotocol/sdk',
  '@langchain/langgraph',
  '@langchain/core',
  '@openai/agents',
  'hono',
  '@hono/node-server',
  'ink',
  're2',
  '@ag-ui/core',
  '@ag-ui/encoder',
];

const HOOKS = `
let port;
export function initialize(data) { port = data.port; }
export async function load(url, context, next) { port.postMessage(url); return next(url, context); }
`;

/** One fresh process: the import's time in ms. */
function timeOnce(entry: string): number {
  const script = `const t = performance.now(); await import(${JSON.stringify(pathToFileURL(entry).href)}); process.stdout.write(String(performance.now() - t));`;
  return Number(execFileSync(process.execPath, ['--input-type=module', '-e', script], { encoding: 'utf8' }));
}

/** One fresh process: every file the import loaded (ES modules and CommonJS ones), as paths. */
function modulesLoaded(entry: string): string[] {
  const script = `
import { register, createRequire } from 'node:module';
import { MessageChannel } from 'node:worker_threads';
const { port1, port2 } = new MessageChannel();
const seen = new Set();
port1.on('message', (url) => { if (url.startsWith('file:')) seen.add(decodeURIComponent(new URL(url).pathname)); });
register('data:text/javascript,' + encodeURIComponent(${JSON.stringify(HOOKS)}), { data: { port: port2 }, transferList: [port2] });
await import(${JSON.stringify(pathToFileURL(entry).href)});
await new Promise((resolve) => setTimeout(resolve, 100));
for (const path of Object.keys(createRequire(import.meta.url).cache)) seen.add(path);
port1.close();
process.stdout.write(JSON.stringify([...seen]));`;
  return JSON.parse(
    execFileSync(process.execPath, ['--input-type=module', '-e', script], { encoding: 'utf8' }),
  ) as string[];
}

function packageOf(path: string): string | undefined {
  const match = /node_modules\/((?:@[^/]+\/)?[^/]+)\//.exec(path.slice(path.lastIndexOf('node_modules/')));
  return match?.[1];
}

interface Figures {
  medianMs: number;
  modules: number;
  packages: number;
  optionalLoaded: string[];
}

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)];
}

function measure(entries: string[]): Figures[] {
  const times = entries.map(() => [] as number[]);
  timeOnce(entries[0]); // warms the file cache for every side alike
  for (let run = 0; run < runs; run++)
    for (const [index, entry] of entries.entries()) times[index].push(timeOnce(entry));
  return entries.map((entry, index) => {
    const files = modulesLoaded(entry);
    const packages = new Set(files.map(packageOf).filter((name): name is string => name !== undefined));
    return {
      medianMs: median(times[index]),
      modules: files.length,
      packages: packages.size,
      optionalLoaded: optional.filter((name) => packages.has(name)),
    };
  });
}

function flag(name: string): string | undefined {
  const index = process.argv.indexOf(name);
  return index === -1 ? undefined : process.argv[index + 1];
}

if (!existsSync(current)) throw new Error('No dist/index.js: run `npm run build` first.');
if (baseline && !existsSync(baseline)) throw new Error(`No ${baseline}.`);
const [now, before] = measure(baseline ? [current, baseline] : [current]);
const ratio = (after: number, was: number) => `${(after / was).toFixed(2)}×`;
const fmt = (ms: number) => `${ms.toFixed(1)} ms`;
const list = (names: string[]) => (names.length ? names.join(', ') : 'none');

const cpu = cpus();
const lines = [
  '## Import cost',
  '',
  `Written by \`npm run bench:import${before ? ' -- --baseline <dir>' : ''}\` (bench/import-cost.ts) on ${new Date().toISOString()}, ${cpu[0]?.model.trim() ?? 'unknown CPU'} × ${cpu.length}, ${platform()} ${release()}, Node ${process.version}.`,
  `\`await import('heed')\` from the built dist/ in fresh \`node\` processes: time is the median of ${runs} processes${before ? ' per side, the two sides alternating' : ''}; modules are the files loaded (ES modules through a loader hook, CommonJS through require's cache).`,
  '',
  '| figure | now | ' + (before ? 'before (same run) | ratio |' : ''),
  '|---|---:|' + (before ? '---:|---:|' : ''),
  `| time to \`import('heed')\`, median | ${fmt(now.medianMs)} | ` +
    (before ? `${fmt(before.medianMs)} | ${ratio(now.medianMs, before.medianMs)} |` : ''),
  `| modules loaded | ${now.modules} | ` +
    (before ? `${before.modules} | ${ratio(now.modules, before.modules)} |` : ''),
  `| packages loaded (node_modules) | ${now.packages} | ` +
    (before ? `${before.packages} | ${ratio(now.packages, before.packages)} |` : ''),
  `| optional libraries loaded | ${list(now.optionalLoaded)} | ` + (before ? `${list(before.optionalLoaded)} | |` : ''),
  '',
];
if (before && baselineDir) lines.push(`"Before" is the build in ${baselineDir}.`, '');
const section = `<!-- import-cost:start -->\n${lines.join('\n')}<!-- import-cost:end -->`;
console.log(lines.join('\n'));

const resultsPath = new URL('./RESULTS.md', import.meta.url);
const results = existsSync(resultsPath) ? readFileSync(resultsPath, 'utf8') : '# Benchmark results\n';
const marked = /<!-- import-cost:start -->[\s\S]*?<!-- import-cost:end -->/;
writeFileSync(
  resultsPath,
  marked.test(results) ? results.replace(marked, section) : `${results.trimEnd()}\n\n${section}\n`,
);
console.log('Wrote the import-cost section of bench/RESULTS.md');
