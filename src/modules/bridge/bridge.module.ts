// Bridge (API §9.3): copies between two connections of a project, through the one row pipeline.
import type { Db } from '../../store/db.ts';
import type { Run } from '../../store/tables.ts';
import type { Module, Shared } from '../module.ts';
import { registerBridgeRoutes } from './bridge.routes.ts';
import { createBridgeService } from './bridge.service.ts';
import { createBridgeRun } from './bridge-run.ts';

/** The connection a bridge run writes to: its target. */
async function connectionOf(_db: Db, run: Run): Promise<string | undefined> {
  const target = (run.params as { target_connection_id?: unknown }).target_connection_id;
  return typeof target === 'string' ? target : undefined;
}

export function bridgeModule(shared: Shared): Module {
  const { db, audit, connections, gate, runs, snapshots, logger, now } = shared;
  const bridge = createBridgeService({ db, audit, connections, gate, runs });
  return {
    name: 'bridge',
    routes: (api) => registerBridgeRoutes(api, { bridge }),
    runKinds: [
      {
        kind: 'bridge_run',
        handler: createBridgeRun({ db, connections, snapshots, logger, now }),
        action: 'bridge.run',
        connectionOf,
        events: { succeeded: 'bridge.completed' },
      },
    ],
    events: ['bridge.completed', 'run.failed'],
  };
}
