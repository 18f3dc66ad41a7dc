// Anonymization (API §9.2): configs with their sealed key, the PII scan and the preview, the
// in-place run (`anonymize_run`, anonymize-run.ts) and the bridge's hook (bridge-transforms.ts).
import type { Db } from '../../store/db.ts';
import type { Run } from '../../store/tables.ts';
import type { Module, Shared } from '../module.ts';
import { registerAnonymizeRoutes } from './anonymize.routes.ts';
import { createAnonymizeService } from './anonymize.service.ts';
import { createAnonymizeInterrupted } from './anonymize-interrupted.ts';
import { createAnonymizeRun } from './anonymize-run.ts';

/** The connection an anonymization run writes to: its config's. */
async function connectionOf(_db: Db, run: Run): Promise<string | undefined> {
  const connection = (run.params as { connection_id?: unknown }).connection_id;
  return typeof connection === 'string' ? connection : undefined;
}

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
        connectionOf,
        events: { succeeded: 'anonymize.completed' },
        interrupted: createAnonymizeInterrupted({ db, connections }),
      },
    ],
    events: ['anonymize.completed', 'run.failed'],
  };
}
