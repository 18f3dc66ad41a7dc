// Anonymization (API §9.2): configs with their sealed key, the PII scan and the preview, and the
// bridge's hook (bridge-transforms.ts). The run (`anonymize_run`) is not registered yet.
// TODO(anonymize_run): register the kind here with its handler once the row pipeline can write
// back in place: per table group of engine/anonymize/run-plan.ts, in one transaction, stream the
// rows out, apply compileTableTransforms (row-transform.ts) batch by batch, stream them into a
// staging table, then one set-based UPDATE … FROM staging by the plan's key; the foreign keys the
// group lists are set aside and validated after. Before writing: strict (strictViolations of a
// fresh PII scan → 409 naming them), the plan's uniqueViolations (fail naming the column), and the
// approval gate bound to runContentHash (run-content.ts). Events: `anonymize.completed`, `run.failed`.
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
