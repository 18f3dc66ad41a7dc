// The version of the schema model. A snapshot records the version of the model that took it; when
// the model learns new objects (version 2: schemas, views, materialized views, functions,
// procedures, triggers, extensions, partitioning, inheritance, constraint validity, identity
// options), a baseline taken by an older version lacks them, and comparing it with a newer snapshot
// would report every such object as added. So a baseline whose `model_version` is older than this
// one (or absent: version 1) is re-taken, never compared (docs/contract.md §6). Version 3: enums and sequences
// that no column uses are managed (compared and planned), and tables, indexes, foreign keys and
// columns carry the options of hardening (storage parameters, NULLS NOT DISTINCT, MATCH FULL…).
// Version 4: CHECK expressions hash in their normal form (normalize-expressions.ts: the casts a
// column retype re-prints) and a table's storage records its CLUSTER ON index, so a baseline
// hashed by version 3 is re-taken rather than compared.
//
// Hashes stay stable where nothing new is found: the canonical form (hash.ts) leaves out empty new
// sections and the default `public` schema, so a plain schema hashes as it did under version 1.
export const SCHEMA_MODEL_VERSION = 4;

/** The version a stored model was taken by (1 when it predates the field). */
export function modelVersionOf(model: { model_version?: number }): number {
  return model.model_version ?? 1;
}

/** Whether a stored baseline must be re-taken before it can be compared with a current snapshot. */
export function isOutdatedModel(model: { model_version?: number }): boolean {
  return modelVersionOf(model) < SCHEMA_MODEL_VERSION;
}
