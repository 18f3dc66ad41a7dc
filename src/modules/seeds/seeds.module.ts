// Seed scenarios (docs/contract.md §9.1): the scenarios' CRUD, the preview and the run (`seed_run`, seed-run.ts).
import type { Module, Shared } from '../module.ts';
import { connectionParam } from '../runs/run-kinds.ts';
import { createSeedInterrupted } from './seed-interrupted.ts';
import { createSeedRun, SeedRunParams } from './seed-run.ts';
import { registerSeedRoutes } from './seeds.routes.ts';
import { createSeedsService } from './seeds.service.ts';

export function seedsModule(shared: Shared): Module {
  const { db, audit, connections, gate, runs, now } = shared;
  const seeds = createSeedsService({ db, audit, connections, gate, runs, now });
  return {
    name: 'seeds',
    routes: (api) => registerSeedRoutes(api, { seeds }),
    runKinds: [
      {
        kind: 'seed_run',
        handler: createSeedRun({ db, connections }),
        action: 'seed.run',
        params: SeedRunParams,
        touches: (params) => ({ writes: connectionParam(params, 'connection_id') }),
        events: { succeeded: 'seed.completed' },
        interrupted: createSeedInterrupted({ db, connections }),
      },
    ],
    events: ['seed.completed', 'run.failed'],
  };
}
