import { postgresStore } from '../src/index.js';
import { freshDatabase } from '../test/pg.js';
import { describeProfile, profileCycles } from './cycle-profile.js';
import { pauseHalf, resumeHalf } from './w1-approval.js';
const database = await freshDatabase('heed_prof');
for (let r = 0; r < 2; r++) {
const profile = await profileCycles(postgresStore({ connectionString: database.url }), {
  warmup: 100, cycles: 500, cycle: async (heed) => resumeHalf(heed, await pauseHalf(heed)),
});
console.log(describeProfile('PostgreSQL', profile));
}
await database.drop();
