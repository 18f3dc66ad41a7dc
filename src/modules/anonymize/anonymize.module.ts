// Anonymization (API §9.2): configs with their sealed key, the PII scan and the preview. The run
// (`anonymize_run`) is not registered yet: its handler streams each table group through the
// bridge's row pipeline (a row stream out, the compiled transformers per row, a row stream into a
// staging table, then a set-based UPDATE … FROM staging by key), planned by
// engine/anonymize/run-plan.ts. TODO(anonymize_run): register it here once the pipeline lands.
import type { Module, Shared } from '../module.ts';
import { registerAnonymizeRoutes } from './anonymize.routes.ts';
import { createAnonymizeService } from './anonymize.service.ts';

export function anonymizeModule(shared: Shared): Module {
  const { db, audit, box, connections, gate, now } = shared;
  const anonymize = createAnonymizeService({ db, audit, box, connections, gate, now });
  return {
    name: 'anonymize',
    routes: (api) => registerAnonymizeRoutes(api, { anonymize }),
  };
}
