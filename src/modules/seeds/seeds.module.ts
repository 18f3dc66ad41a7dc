// Seed scenarios (API §9.1): the scenarios' CRUD, the preview and the run (`seed_run`, seed-run.ts).
import type { Db } from '../../store/db.ts';
import type { Run } from '../../store/tables.ts';
import type { Module, Shared } from '../module.ts';
import { createSeedInterrupted } from './seed-interrupted.ts';
import { createSeedRun } from './seed-run.ts';
import { registerSeedRoutes } from './seeds.routes.ts';
import { createSeedsService } from './seeds.service.ts';

/** The connection a seed run writes to: its scenario's. */
async function connectionOf(_db: Db, run: Run): Promise<string | undefined> {
  const connection = (run.params as { connection_id?: unknown }).connection_id;
  return typeof connection === 'string' ? connection : undefined;
}

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
        connectionOf,
        events: { succeeded: 'seed.completed' },
        interrupted: createSeedInterrupted({ db, connections }),
      },
    ],
    events: ['seed.completed', 'run.failed'],
  };
}
