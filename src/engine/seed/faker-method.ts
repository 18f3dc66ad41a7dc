// An explicit `faker` generator's method, reached by its dotted path through the allow-list
// (faker-allow-list.ts) only, and the probe instance a definition's faker generator is tried on
// when it is saved. Pure apart from that probe, built once per process.
import type { Faker } from '@faker-js/faker';
import { allowedFakerMethod } from './faker-allow-list.ts';
import { fakerLibrary } from './faker-library.ts';

/**
 * A faker method by its dotted path (`person.firstName`), or null when it is not on the allow-list
 * (faker-allow-list.ts). The path is matched against that list first: the module is an own property
 * of the instance and the method a name the list declares, so no text of a request picks a property.
 */
export function fakerMethod(faker: Faker, path: string): ((...args: unknown[]) => unknown) | null {
  const allowed = allowedFakerMethod(path);
  if (!allowed || !Object.hasOwn(faker, allowed.module)) return null;
  const owner: unknown = Reflect.get(faker, allowed.module);
  if (owner === null || typeof owner !== 'object') return null;
  const method: unknown = Reflect.get(owner, allowed.method);
  return typeof method === 'function' ? (method as (...args: unknown[]) => unknown).bind(owner) : null;
}

let probe: Faker | undefined;

/** The English faker instance a definition's faker generator is tried on when it is saved. */
export function probeFaker(): Faker {
  const { Faker, allLocales } = fakerLibrary();
  probe ??= new Faker({ locale: [allLocales.en, allLocales.base] });
  return probe;
}
