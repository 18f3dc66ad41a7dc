// Bridge (docs/contract.md §9.3): copies between two connections of a project, through the one row pipeline.
// The anonymization module's adapter is handed in here as the bridge's own small interface
// (bridge-anonymize.ts): the service and the run know nothing of how configs are kept.
import { createBridgeAnonymizer } from '../anonymize/bridge-transforms.ts';
import type { Module, Shared } from '../module.ts';
import { connectionParam } from '../runs/run-kinds.ts';
import { registerBridgeRoutes } from './bridge.routes.ts';
import { createBridgeService } from './bridge.service.ts';
import { createBridgeInterrupted } from './bridge-interrupted.ts';
import { BridgeParams } from './bridge-params.ts';
import { createBridgeRun } from './bridge-run.ts';

export function bridgeModule(shared: Shared): Module {
  const { db, audit, box, connections, runs, snapshots, logger, now } = shared;
  const anonymizer = createBridgeAnonymizer({ db, box, connections });
  const bridge = createBridgeService({ db, audit, connections, runs, anonymizer });
  return {
    name: 'bridge',
    routes: (api) => registerBridgeRoutes(api, { bridge }),
    runKinds: [
      {
        kind: 'bridge_run',
        handler: createBridgeRun({ db, connections, snapshots, logger, now, anonymizer }),
        action: 'bridge.run',
        params: BridgeParams,
        // Rows leave the source for the target: a protected source guards them as a protected target does.
        touches: (params) => ({
          writes: connectionParam(params, 'target_connection_id'),
          readsRows: connectionParam(params, 'source_connection_id'),
        }),
        events: { succeeded: 'bridge.completed' },
        // The foreign keys a killed run had set aside go back (journalled in its report).
        interrupted: createBridgeInterrupted({ db, connections }),
      },
    ],
    events: ['bridge.completed', 'run.failed'],
  };
}
