/**
 * `npm test`: the format check and the lint run beside the suite rather than before it. Each of the two
 * holds one core for a while (about 10 s and 20 s on two cores), and the suite leaves a core idle now and
 * then (its set-up, processes starting, the fault tests' pauses); in a row they were the first 40 s of every
 * run. Vitest's report comes as it runs; each check's report comes in one piece when it ends. Any failure
 * fails the whole; arguments go to vitest (`npm test -- src/kinds`).
 */
import { spawn } from 'node:child_process';

const started = Date.now();
const seconds = () => `${Math.round((Date.now() - started) / 1000)} s`;

/** Runs a command with its output kept, then prints it whole, headed by how it went. */
function check(name, command, args) {
  return new Promise((resolve) => {
    const child = spawn(command, args, { stdio: ['ignore', 'pipe', 'pipe'] });
    let output = '';
    child.stdout.on('data', (chunk) => (output += chunk));
    child.stderr.on('data', (chunk) => (output += chunk));
    child.on('error', (error) => (output += `${error.message}\n`));
    child.on('close', (code) => {
      const passed = code === 0;
      const lines = passed ? '' : `\n${output.trimEnd()}\n`;
      process.stdout.write(`\n[npm test] ${name} ${passed ? 'passed' : 'FAILED'} (${seconds()})${lines}\n`);
      resolve(passed);
    });
  });
}

function suite(args) {
  return new Promise((resolve) => {
    const child = spawn('vitest', ['run', '--configLoader', 'runner', ...args], { stdio: 'inherit' });
    child.on('error', (error) => {
      process.stderr.write(`[npm test] vitest could not start: ${error.message}\n`);
      resolve(false);
    });
    child.on('close', (code) => resolve(code === 0));
  });
}

const results = await Promise.all([
  check('prettier --check .', 'prettier', ['--check', '.']),
  check('eslint .', 'eslint', ['.']),
  suite(process.argv.slice(2)),
]);
const [formatted, linted] = results;
if (!formatted) process.stdout.write('[npm test] formatting: run `npm run format` and commit the result.\n');
if (!linted) process.stdout.write('[npm test] the lint failed: its report is above.\n');
process.exitCode = results.every(Boolean) ? 0 : 1;
