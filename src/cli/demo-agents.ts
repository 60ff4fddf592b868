// The demo agents moved to src/demo/ (exported as heed/demo); kept here for imports of the old path.
export { demoAgents } from '../demo/agents.js';
