import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { cpus, platform, release, totalmem } from 'node:os';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { progress, type BenchRow, type WorkloadResult } from './report.js';
import { runW1 } from './w1-approval.js';
import { runW1Audit } from './w1-audit.js';
import { runW1Postgres } from './w1-postgres.js';
import { runW2 } from './w2-parked.js';
import { runW3 } from './w3-contention.js';

/**
 * `npm run bench [-- --full]`: W1 (SQLite at NORMAL and FULL beside the AI SDK peer and the raw floors, then
 * PostgreSQL beside SQLite, the AI SDK peer on pg and a raw pg floor), W2, W3 and (when
 * bench/w4-http.ts is there) W4 of DESIGN §11, one after the other in this process (W3's servers are
 * child processes). Prints a table and rewrites bench/RESULTS.md. The PostgreSQL workloads use the
 * server of test/pg.ts (HEED_TEST_DATABASE_URL, else the local `test` database) and say so when none answers.
 * `--full` (or HEED_BENCH_FULL=1) parks 100,000 conversations in W2 instead of 10,000.
 * Cycle counts: HEED_BENCH_W1_CYCLES (3000; the NORMAL floor runs 4×), HEED_BENCH_W1_FULL_CYCLES (500),
 * HEED_BENCH_W1_PG_CYCLES (1000), HEED_BENCH_PARKED (W2's N).
 */
const full = process.argv.includes('--full') || process.env.HEED_BENCH_FULL === '1';
const parked = Number(process.env.HEED_BENCH_PARKED ?? (full ? 100_000 : 10_000));
const w1Cycles = Number(process.env.HEED_BENCH_W1_CYCLES ?? 3000);
// W1 at synchronous=FULL (Heed, the fsync floor, the AI SDK peer): every commit waits for an fsync.
const w1FullCycles = Number(process.env.HEED_BENCH_W1_FULL_CYCLES ?? 500);

const started = new Date();
const sections: Array<{ title: string; result?: WorkloadResult; note?: string }> = [];

sections.push({
  title: 'W1 approval round trip',
  result: await runW1({ warmup: 300, cycles: w1Cycles, fullCycles: w1FullCycles }),
});
sections.push({
  title: 'W1 with and without the audit log',
  result: await runW1Audit({ warmup: 300, cycles: w1Cycles }),
});
sections.push(
  postgresSection(
    'W1 approval round trip on PostgreSQL',
    await runW1Postgres({ warmup: 200, cycles: Number(process.env.HEED_BENCH_W1_PG_CYCLES ?? 1000) }),
  ),
);
// Before W2: its large file's writeback would otherwise land on PostgreSQL's commit flushes.
sections.push(postgresSection('W3 contention', await runW3()));
sections.push({ title: 'W2 parked footprint', result: await runW2({ parked }) });

const w4Path = fileURLToPath(new URL('./w4-http.ts', import.meta.url));
if (existsSync(w4Path)) {
  const w4 = (await import(pathToFileURL(w4Path).href)) as { runW4?: () => Promise<unknown> };
  if (typeof w4.runW4 === 'function') {
    progress('W4 HTTP throughput');
    sections.push({ title: 'W4 HTTP throughput', ...asSection(await w4.runW4()) });
  } else {
    sections.push({ title: 'W4 HTTP throughput', note: 'Skipped: bench/w4-http.ts does not export runW4().' });
  }
} else {
  sections.push({ title: 'W4 HTTP throughput', note: 'Skipped: bench/w4-http.ts is not there yet.' });
}

const rows = sections.flatMap((section) => section.result?.rows ?? []);
printTable(rows);
for (const section of sections) if (section.note) console.log(`${section.title}: ${section.note}`);
// The import-cost section is written by bench/import-cost.ts (npm run bench:import): keep it.
const resultsPath = new URL('./RESULTS.md', import.meta.url);
const importCost = existsSync(resultsPath)
  ? /<!-- import-cost:start -->[\s\S]*?<!-- import-cost:end -->/.exec(readFileSync(resultsPath, 'utf8'))?.[0]
  : undefined;
writeFileSync(resultsPath, resultsMarkdown() + (importCost ? `\n${importCost}\n` : ''));
console.log('\nWrote bench/RESULTS.md');

/** A PostgreSQL workload that found no server returns no rows, only the reason: show it as a note. */
function postgresSection(
  title: string,
  result: WorkloadResult,
): { title: string; result?: WorkloadResult; note?: string } {
  return result.rows.length > 0 ? { title, result } : { title, note: result.details.join(' ') };
}

/** W4 is written elsewhere: take its rows when it returns a WorkloadResult, else show what it returned. */
function asSection(value: unknown): { result?: WorkloadResult; note?: string } {
  if (value && typeof value === 'object' && Array.isArray((value as WorkloadResult).rows)) {
    const result = value as WorkloadResult;
    return { result: { rows: result.rows, details: Array.isArray(result.details) ? result.details : [] } };
  }
  return { note: `runW4() returned:\n\n\`\`\`json\n${JSON.stringify(value, null, 2)}\n\`\`\`` };
}

function printTable(table: BenchRow[]): void {
  const header = ['', 'figure', 'Heed', 'baseline (same run)', 'ratio', 'target', ''];
  const lines = [
    header,
    ...table.map((r) => [
      r.workload,
      r.figure,
      r.value,
      r.baseline,
      r.ratio,
      r.target,
      r.verdict === 'info' ? '' : r.verdict,
    ]),
  ];
  const widths = header.map((_, column) => Math.max(...lines.map((line) => line[column].length)));
  console.log('');
  for (const [index, line] of lines.entries()) {
    console.log(
      line
        .map((cell, column) => cell.padEnd(widths[column]))
        .join('  ')
        .trimEnd(),
    );
    if (index === 0) console.log(widths.map((width) => '-'.repeat(width)).join('  '));
  }
}

function resultsMarkdown(): string {
  const cpu = cpus();
  const escape = (text: string) => text.replaceAll('|', '\\|');
  const out: string[] = [
    '# Benchmark results',
    '',
    'Written by `npm run bench` (bench/run.ts); every run overwrites this file. The workloads and targets',
    'are those of DESIGN.md §11. Ratios compare figures measured in the same run, because absolute figures',
    'drift on these machines.',
    '',
    `- Date: ${started.toISOString()}`,
    `- Machine: ${cpu[0]?.model.trim() ?? 'unknown CPU'} × ${cpu.length}, ${Math.round(totalmem() / 1024 ** 3)} GiB, ${platform()} ${release()}`,
    `- Node ${process.version}; W2 with N = ${parked.toLocaleString('en-US')}${full ? ' (--full)' : ''}`,
    `- Verdicts: ${rows.filter((r) => r.verdict === 'PASS').length} PASS, ${rows.filter((r) => r.verdict === 'MISS').length} MISS`,
    '',
    '| | figure | Heed | baseline (same run) | ratio | target | result |',
    '|---|---|---:|---|---:|---|---|',
    ...rows.map(
      (r) =>
        `| ${r.workload} | ${escape(r.figure)} | ${escape(r.value)} | ${escape(r.baseline)} | ${r.ratio} | ${escape(r.target)} | ${r.verdict === 'info' ? '' : `**${r.verdict}**`} |`,
    ),
    '',
  ];
  for (const section of sections) {
    out.push(`## ${section.title}`, '');
    if (section.note) out.push(section.note, '');
    if (section.result) out.push(...section.result.details, '');
  }
  return out.join('\n');
}
