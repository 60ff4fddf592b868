/**
 * `heed/demo`: the agents `heed serve` runs without a config, for a config to start from:
 *
 * ```ts
 * import { defineConfig } from 'heed';
 * import { demoAgents } from 'heed/demo';
 * export default defineConfig({ agents: [...demoAgents({ approvers: ['ana', 'ben'] }), myAgent] });
 * ```
 *
 * The demo's sign-in tokens are not here: they belong to `heed serve` without a config, and a server
 * with a config has the users its `auth` names.
 */
export { demoAgents, type DemoAgentOptions } from './agents.js';
export { demoUsers, type DemoUser } from './users.js';
