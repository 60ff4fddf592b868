/**
 * The order files start in: the costliest project first, and in it the files known to take longest,
 * so that the last minutes of a run are short files filling both cores rather than one long file
 * running alone. Within that, vitest's own order (slowest first by the last run's timings, else largest).
 */
import { BaseSequencer, type TestSpecification } from 'vitest/node';

const projects = ['e2e', 'integration', 'http', 'unit'];

/** The longest files of the suite (docs/testing.md lists their times); only their start order depends on this. */
const longest = [
  'test/fresh-clone.test.ts',
  'test/crash.test.ts',
  'test/browser/console-layout.test.ts',
  'test/inbox-terminal.test.ts',
  'test/faults/partition.test.ts',
  'test/serve-restart.test.ts',
  'test/types/published-types.test.ts',
  'test/fifth-kind.test.ts',
];

function rank(spec: TestSpecification): number {
  const known = longest.findIndex((path) => spec.moduleId.endsWith(path));
  return projects.indexOf(spec.project.name) * 100 + (known === -1 ? 50 : known);
}

export default class CostliestFirst extends BaseSequencer {
  override async sort(files: TestSpecification[]): Promise<TestSpecification[]> {
    const sorted = await super.sort(files);
    // Array.prototype.sort is stable: files of equal rank keep vitest's order.
    return sorted.sort((a, b) => rank(a) - rank(b));
  }
}
