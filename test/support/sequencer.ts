// The order test files start in. Vitest starts the longest first when it has the durations of an
// earlier run in its cache, and a clean clone (CI) has none: it then starts the biggest files first.
// The longest are not the biggest: a 78-line table of schema objects runs 93 cases for over three
// minutes, and in CI on 2026-11-28 it started 164th of 169 and set the end of the run (1,079 s for
// 2,480 s of files on three workers). These files, the longest of that run, start first, in this
// order; the rest keep Vitest's. A file renamed or gone only drops out of the list.
import { BaseSequencer, type TestSpecification } from 'vitest/node';

const LONGEST = [
  'src/dialects/postgres/postgres.migration-objects.test.ts', // 193 s in that run
  'test/e2e/crash-safety.test.ts', // 109 s
  'test/e2e/many-processes.test.ts', // 94 s
  'test/e2e/crash-safety-data.test.ts', // 83 s
  'test/e2e/embedded-start.test.ts', // 82 s
  'test/e2e/image-script.test.ts', // 81 s
  'src/modules/bridge/bridge.test.ts', // 67 s
  'src/dialects/postgres/postgres.migration-corpus.test.ts', // 56 s
];

const rank = (file: TestSpecification) => {
  const at = LONGEST.findIndex((name) => file.moduleId.endsWith(name));
  return at === -1 ? LONGEST.length : at;
};

export default class LongestFirst extends BaseSequencer {
  override async sort(files: TestSpecification[]): Promise<TestSpecification[]> {
    // Array.prototype.sort is stable: the unlisted files keep the order Vitest gave them.
    return (await super.sort(files)).sort((a, b) => rank(a) - rank(b));
  }
}
