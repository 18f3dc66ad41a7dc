import os from 'node:os';
import path from 'node:path';
import { defineConfig } from 'vitest/config';

// The suite starts servers, workers and the CLI as child processes by the hundred, each compiling
// the same modules again; with Node's on-disk compile cache (inherited through the environment) a
// start is about 0.4 s cheaper. Kept with the dependencies, where a clean clone has none yet.
process.env.NODE_COMPILE_CACHE ??= path.resolve(
  import.meta.dirname,
  'node_modules/.cache/node-compile-cache',
);

export default defineConfig({
  test: {
    include: ['src/**/*.test.ts', 'test/**/*.test.ts', 'web/src/**/*.test.ts'],
    globalSetup: ['test/support/global-setup.ts'],
    testTimeout: 30_000,
    hookTimeout: 60_000,
    // A poll waits for what a page or a worker shows next; a second (Vitest's default) is short on a
    // loaded 2-core machine, where the browser tests then failed with the right value on its way.
    expect: { poll: { timeout: 10_000 } },
    pool: 'forks',
    // Vitest's default is one worker fewer than the cores: one on the 2-core CI machine, where the
    // whole suite then ran file after file with under one core busy, as most files mostly wait (on
    // the database servers, child processes, Chromium). With two workers the cores still idled a
    // fifth of the run; three on 2 cores took the suite from 716 s to 651 s, the web tests' slowest
    // step well inside its 15 s timeout. On bigger machines the default stands.
    maxWorkers: Math.max(3, os.availableParallelism() - 1),
    experimental: {
      // Test files import the code with Node's own loader (type stripping and the compile cache
      // above), as `node src/main.ts` does, instead of Vite's module runner: importing the app
      // took ~2.4 s per test file through the runner and takes about half that natively. The code
      // is plain Node TypeScript and no test uses `vi.mock` or `import.meta.vitest`, the features
      // Vitest's loader hook (`nodeLoader`) would be for.
      viteModuleRunner: false,
      nodeLoader: false,
    },
  },
});
