/** A count with its noun in the number it needs: "1 rule", "3 rules", never "1 rules". */
export function countOf(count: number, noun: string, plural = `${noun}s`): string {
  return `${count} ${count === 1 ? noun : plural}`;
}
