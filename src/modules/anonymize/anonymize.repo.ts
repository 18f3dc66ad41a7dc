// Store access for anonymization configs: the queries every connection-scoped config shares
// (connections/connection-configs.repo.ts), on this module's table.
import { connectionConfigsRepo } from '../connections/connection-configs.repo.ts';

const configs = connectionConfigsRepo('anonymize_configs');

/** A config of the caller's organization, by id. */
export const findConfig = configs.find;

/** A config by id alone, for the run handler (the run was authorised when requested). */
export const findConfigById = configs.findById;
