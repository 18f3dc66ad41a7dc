// Date and timestamp transformers (noise by days, range, generalize to month or year) over what
// drivers give: Date objects, or strings `YYYY-MM-DD`, `YYYY-MM-DD HH:MM:SS[.fff]` (read as UTC wall
// time) or ISO 8601 with an offset. The output keeps the input's representation; dates stay whole days.

const DAY_MS = 86_400_000;

interface Temporal {
  ms: number;
  write(ms: number): Date | string;
}

const DATE_ONLY = /^(\d{4})-(\d{2})-(\d{2})$/;
const WALL_TIME = /^(\d{4}-\d{2}-\d{2})([ T])(\d{2}:\d{2}:\d{2})(\.\d+)?$/;

/** Reads a date or timestamp value; null when it is not one this module understands. */
export function readTemporal(value: unknown): Temporal | null {
  if (value instanceof Date) {
    if (Number.isNaN(value.getTime())) return null;
    return { ms: value.getTime(), write: (ms) => new Date(ms) };
  }
  if (typeof value !== 'string') return null;
  const dateOnly = DATE_ONLY.exec(value);
  if (dateOnly) {
    const ms = Date.UTC(Number(dateOnly[1]), Number(dateOnly[2]) - 1, Number(dateOnly[3]));
    return { ms, write: (out) => new Date(out).toISOString().slice(0, 10) };
  }
  const wall = WALL_TIME.exec(value);
  if (wall) {
    const fraction = wall[4] ?? '';
    const ms = Date.parse(`${wall[1]}T${wall[3]}${fraction.slice(0, 4)}Z`);
    if (Number.isNaN(ms)) return null;
    return {
      ms,
      write: (out) => {
        const iso = new Date(out).toISOString();
        const digits =
          fraction.length > 1
            ? `.${iso.slice(20, 23)}`.slice(0, fraction.length).padEnd(fraction.length, '0')
            : '';
        return `${iso.slice(0, 10)}${wall[2]}${iso.slice(11, 19)}${digits}`;
      },
    };
  }
  const ms = Date.parse(value);
  if (Number.isNaN(ms)) return null;
  return { ms, write: (out) => new Date(out).toISOString() };
}

function startOfDay(ms: number): number {
  return Math.floor(ms / DAY_MS) * DAY_MS;
}

/** Shifted by up to `days` either way; `u` in [-1, 1). Dates move by whole days. */
export function noiseTemporal(t: Temporal, days: number, u: number, dateOnly: boolean): Date | string {
  if (dateOnly) return t.write(t.ms + Math.round(u * days) * DAY_MS);
  return t.write(t.ms + Math.round(u * days * DAY_MS));
}

/** A point in [min, max] (epoch ms); dates fall on a day. */
export function rangeTemporal(min: number, max: number, fraction: number, dateOnly: boolean): number {
  if (dateOnly) {
    const days = Math.floor((max - min) / DAY_MS) + 1;
    return startOfDay(min) + Math.floor(fraction * days) * DAY_MS;
  }
  return min + Math.floor(fraction * (max - min + 1));
}

/** The first instant of the value's month or year, in UTC. */
export function generalizeTemporal(t: Temporal, unit: 'month' | 'year'): Date | string {
  const d = new Date(t.ms);
  const ms = Date.UTC(d.getUTCFullYear(), unit === 'year' ? 0 : d.getUTCMonth(), 1);
  return t.write(ms);
}

/** A Temporal writing in the shape of `template`, or as a Date when there is none (a null input). */
export function temporalLike(template: unknown, dateOnly: boolean): (ms: number) => Date | string {
  const t = readTemporal(template);
  if (t) return t.write;
  return dateOnly ? (ms) => new Date(ms).toISOString().slice(0, 10) : (ms) => new Date(ms);
}
