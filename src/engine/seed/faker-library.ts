// The faker library's index (its Faker class and all seventy-six locales' data), loaded the first
// time a seed needs it rather than when the service starts: holding every locale costs 300 ms of
// start-up and 17 MB of heap, which every process would pay (and its collector walk) for the few
// seeds that call a faker method or read its word lists.
import { createRequire } from 'node:module';

type FakerLibrary = typeof import('@faker-js/faker');

const require = createRequire(import.meta.url);
let library: FakerLibrary | undefined;

export function fakerLibrary(): FakerLibrary {
  library ??= require('@faker-js/faker') as FakerLibrary;
  return library;
}
