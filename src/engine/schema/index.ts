// The schema engine: the neutral model of a database schema, its normalisation, filtering of shadow
// objects, canonical hashing and the diff with severities. Pure functions over plain data; the
// dialects (src/dialects) produce the models from live servers.
export * from './diff.ts';
export * from './filter.ts';
export * from './hash.ts';
export * from './model.ts';
export * from './normalize.ts';
export * from './objects.ts';
export * from './severity.ts';
export * from './version.ts';
