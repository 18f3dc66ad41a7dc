// What an approval of an anonymization run is bound to (docs/contract.md §10): the rules as stored
// (with what they propagate to), the id of the key (so replacing the key voids the approval without
// the key itself ever entering a hash anyone can see), and the target's schema hash. Editing any of
// them makes a new content hash, so an approval given for the old content no longer releases a run.
import { createHash } from 'node:crypto';
import { canonicalJson } from '../../engine/anonymize/keyed.ts';
import type { AnonymizeConfig } from '../../store/tables.ts';

export function runContentHash(
  config: Pick<AnonymizeConfig, 'rules' | 'propagated' | 'key_id'>,
  targetSchemaHash: string,
): string {
  return createHash('sha256')
    .update(canonicalJson([config.rules, config.propagated, config.key_id, targetSchemaHash]))
    .digest('hex');
}
