// The server config W3 (bench/w3-contention.ts) starts `heed serve` with: the W1 refund agent, whose tool
// also appends a line to HEED_BENCH_TOOL_LOG on each run, so the bench can count runs across processes.
import { appendFileSync } from 'node:fs';
import { defineConfig } from '../src/index.js';
import { benchRefundAgent } from './refund-agent.js';

const { agent } = benchRefundAgent();
const log = process.env.HEED_BENCH_TOOL_LOG;
const refund = agent.tools!.issue_refund;
const execute = refund.execute!;

export default defineConfig({
  agents: [
    {
      ...agent,
      tools: {
        issue_refund: {
          ...refund,
          execute: async (input, context) => {
            if (log) appendFileSync(log, `${context.idempotencyKey}\n`);
            return execute(input, context);
          },
        },
      },
    },
  ],
  // The bench measures answers, not the sweep.
  sweepIntervalMs: 0,
  // Each round starts a conversation, far more a minute than one caller may by default.
  limits: { conversationsPerMinute: 0 },
});
