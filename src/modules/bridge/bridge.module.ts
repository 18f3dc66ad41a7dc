// Bridge (API §9.3): copies between two connections of a project, through the one row pipeline.
// The anonymization module's adapter is handed in here as the bridge's own small interface
// (bridge-anonymize.ts): the service and the run know nothing of how configs are kept.
import type { Db } from '../../store/db.ts';
import type { Run } from '../../store/tables.ts';
import { createBridgeAnonymizer } from '../anonymize/bridge-transforms.ts';
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
  const { db, audit, box, connections, gate, runs, snapshots, logger, now } = shared;
  const anonymizer = createBridgeAnonymizer({ db, box, connections });
  const bridge = createBridgeService({ db, audit, connections, gate, runs, anonymizer });
  return {
    name: 'bridge',
    routes: (api) => registerBridgeRoutes(api, { bridge }),
    runKinds: [
      {
        kind: 'bridge_run',
        handler: createBridgeRun({ db, connections, snapshots, logger, now, anonymizer }),
        action: 'bridge.run',
        connectionOf,
        events: { succeeded: 'bridge.completed' },
      },
    ],
    events: ['bridge.completed', 'run.failed'],
  };
}
