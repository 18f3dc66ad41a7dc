// Store access for seed scenarios: the queries every connection-scoped config shares
// (connections/connection-configs.repo.ts), on this module's table.
import { connectionConfigsRepo } from '../connections/connection-configs.repo.ts';

const scenarios = connectionConfigsRepo('seed_scenarios');

/** A scenario by id alone, for the run handler (the run was authorised when requested). */
export const findScenarioById = scenarios.findById;
