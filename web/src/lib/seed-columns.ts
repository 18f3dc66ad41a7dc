// The per-column generators of a seed table as the form holds them (a kind and its options typed as
// JSON) turned into the definition's `columns`: only the columns given a kind; the others are
// inferred by the service from their name and type.
import type { components } from '../api/schema';

type SeedGenerator = components['schemas']['SeedGenerator'];

export const GENERATOR_KINDS = [
  'faker',
  'sequence',
  'int',
  'float',
  'timestamp',
  'date',
  'choice',
  'constant',
  'template',
  'reference',
  'default',
  'null',
] as const;

export interface ColumnChoice {
  /** '' = inferred by the service */
  kind: string;
  /** The generator's other fields as a JSON object, e.g. {"min": 1, "max": 9} */
  options: string;
}

export function generatorColumns(
  table: string,
  choices: Record<string, ColumnChoice>,
): Record<string, SeedGenerator> | undefined {
  const columns: Record<string, SeedGenerator> = {};
  for (const [column, choice] of Object.entries(choices)) {
    if (!choice.kind) continue;
    columns[column] = { ...optionsOf(`${table}.${column}`, choice.options), kind: choice.kind };
  }
  return Object.keys(columns).length > 0 ? columns : undefined;
}

function optionsOf(where: string, text: string): Record<string, unknown> {
  if (!text.trim()) return {};
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    throw new Error(`${where}: the generator options are not valid JSON`);
  }
  if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) {
    throw new Error(`${where}: the generator options must be a JSON object`);
  }
  return parsed as Record<string, unknown>;
}
