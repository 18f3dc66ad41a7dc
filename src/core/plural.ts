// Counts in messages written for people: "1 row", "2 rows", never "1 rows".

/** `count` with the noun in the number it needs; `plural` for nouns without a plain -s. */
export function countOf(count: number, noun: string, plural = `${noun}s`): string {
  return `${count} ${count === 1 ? noun : plural}`;
}
