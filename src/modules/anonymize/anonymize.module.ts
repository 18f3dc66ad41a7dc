// Anonymization (docs/contract.md §9.2): configs with their sealed key, the PII scan and the preview, the
// in-place run (`anonymize_run`, anonymize-run.ts) and the bridge's hook (bridge-transforms.ts).
import type { Module, Shared } from '../module.ts';
import { connectionParam } from '../runs/run-kinds.ts';
import { registerAnonymizeRoutes } from './anonymize.routes.ts';
import { createAnonymizeService } from './anonymize.service.ts';
import { createAnonymizeInterrupted } from './anonymize-interrupted.ts';
import { AnonymizeRunParams, createAnonymizeRun } from './anonymize-run.ts';

export function anonymizeModule(shared: Shared): Module {
  const { db, audit, box, connections, gate, runs, now } = shared;
  const anonymize = createAnonymizeService({ db, audit, box, connections, gate, runs, now });
  return {
    name: 'anonymize',
    routes: (api) => registerAnonymizeRoutes(api, { anonymize }),
    runKinds: [
      {
        kind: 'anonymize_run',
        handler: createAnonymizeRun({ db, box, connections }),
        action: 'anonymize.run',
        params: AnonymizeRunParams,
        // In place: the config's connection is read and written.
        touches: (params) => ({ writes: connectionParam(params, 'connection_id') }),
        events: { succeeded: 'anonymize.completed' },
        interrupted: createAnonymizeInterrupted({ db, connections }),
      },
    ],
    events: ['anonymize.completed', 'run.failed'],
  };
}
