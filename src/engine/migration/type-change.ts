// What a column type change does to the data and to the table: whether it widens (every value
// fits), narrows (values can be cut or refused) or changes family, and whether the engine rewrites
// the table to do it. Used by lint (alter-column-type, costly-alter-on-large-table) and by the
// rollback (changing a type back is lossy). Facts: PostgreSQL rewrites for int→bigint and any cast
// that is not binary-coercible, but not for a longer varchar, varchar→text, a numeric with more
// precision and the same scale, or a timestamp with more precision; MySQL copies the table except
// for a longer VARCHAR or ENUM values appended at the end, which it may do in place.
import type { EngineTraits } from '../schema/engine-traits.ts';

export type TypeDirection = 'same' | 'widening' | 'narrowing' | 'changing';

export interface TypeChange {
  direction: TypeDirection;
  /** The engine rewrites (or, for MySQL, copies) the whole table. */
  rewrite: boolean;
}

const bigger = (a: number | null, b: number | null) => a === null || (b !== null && a >= b);

/** The change from type `from` to type `to` (both as the model prints them). */
export function classifyTypeChange(from: string, to: string, engine: EngineTraits): TypeChange {
  if (from === to) return { direction: 'same', rewrite: false };
  const a = engine.describeType(from);
  const b = engine.describeType(to);
  const inPlace = engine.widensInPlace;
  if (a.family !== b.family) return { direction: 'changing', rewrite: true };
  switch (a.family) {
    case 'int':
    case 'float': {
      if (a.unsigned !== b.unsigned) {
        // Signed → unsigned loses negatives; unsigned → a larger signed type holds every value.
        const widens = a.unsigned === true && (b.size ?? 0) > (a.size ?? 0);
        return { direction: widens ? 'widening' : 'narrowing', rewrite: true };
      }
      return { direction: bigger(b.size, a.size) ? 'widening' : 'narrowing', rewrite: true };
    }
    case 'text':
      if (bigger(b.size, a.size)) return { direction: 'widening', rewrite: !inPlace.text(from, to) };
      return { direction: 'narrowing', rewrite: true };
    case 'numeric': {
      const scaleA = a.scale ?? 0;
      const scaleB = b.scale ?? 0;
      if (b.size === null) return { direction: 'widening', rewrite: !inPlace.unboundedNumeric };
      if (a.size === null) return { direction: 'narrowing', rewrite: true };
      const widens = scaleB >= scaleA && b.size - scaleB >= a.size - scaleA;
      return {
        direction: widens ? 'widening' : 'narrowing',
        rewrite: !(inPlace.numeric && widens && scaleA === scaleB),
      };
    }
    case 'enum':
    case 'set': {
      const before = a.values ?? [];
      const after = b.values ?? [];
      const appended = before.every((value, i) => after[i] === value);
      return appended ? { direction: 'widening', rewrite: false } : { direction: 'changing', rewrite: true };
    }
    default:
      // char, time, timestamp, datetime: the size is a length or a fractional-second precision.
      if (a.size !== null && b.size !== null) {
        const widens = b.size >= a.size;
        return {
          direction: widens ? 'widening' : 'narrowing',
          rewrite: a.family === 'char' || !inPlace.timePrecision || !widens,
        };
      }
      return { direction: 'changing', rewrite: true };
  }
}
