// Pure helpers of the forms (no DOM, no API): what the pages turn their inputs into.
import type { components } from '../api/schema';

type Rule = components['schemas']['PolicyRule'];

export const OPERATIONS: Rule['operation'][] = [
  'patch_execute',
  'patch_rollback',
  'migration_apply',
  'migration_rollback',
  'seed_run',
  'anonymize_run',
  'bridge_run',
];

/** One row per operation: the policy's rule, or an empty one (no environment needs approval). */
export function rowsOf(rules: Rule[]): Rule[] {
  return OPERATIONS.map(
    (operation) =>
      rules.find((rule) => rule.operation === operation) ?? {
        operation,
        environments: [],
        required_approvals: 1,
        allow_self_approval: false,
      },
  );
}

/** A rule's options as typed: a JSON object, or nothing. */
export function parseOptions(text: string, index: number): Record<string, unknown> {
  if (!text.trim()) return {};
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    throw new Error(`Rule ${index + 1}: the options are not valid JSON`);
  }
  if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) {
    throw new Error(`Rule ${index + 1}: the options must be a JSON object`);
  }
  return parsed as Record<string, unknown>;
}
