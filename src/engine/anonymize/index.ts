// Anonymization's pure core: transformers (checked against a column's shape, compiled to functions
// of one value, keyed by the config's secret), the detectors of personal data and the PII scan's
// categories, and the planning of a run (which columns a rule reaches through foreign keys). No I/O:
// the module reads the schema and samples, the row pipeline calls the compiled transformers.
export * from './checksums.ts';
export * from './column-type.ts';
export * from './compile.ts';
export * from './config-check.ts';
export * from './detectors.ts';
export * from './fake.ts';
export * from './json-path.ts';
export * from './keyed.ts';
export * from './pii.ts';
export * from './propagation.ts';
export * from './row-transform.ts';
export * from './rules.ts';
export * from './run-plan.ts';
export * from './shuffle.ts';
