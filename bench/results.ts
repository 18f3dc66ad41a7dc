// bench/results.md holds one section per bench (`api`, `schema`, `migration`, `patch`), each between
// `<!-- bench:NAME -->` and `<!-- /bench:NAME -->`, so that running one bench (BENCH_ONLY) replaces
// its own section and keeps the others' last results.
import { readFile, writeFile } from 'node:fs/promises';

const RESULTS = new URL('./results.md', import.meta.url);

export async function updateResults(name: string, markdown: string): Promise<void> {
  let text = '';
  try {
    text = await readFile(RESULTS, 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
  }
  // A file without sections is the API bench's report from before sections existed.
  if (text.trim() !== '' && !text.includes('<!-- bench:')) text = wrap('api', text);
  const block = wrap(name, markdown);
  const pattern = new RegExp(`<!-- bench:${name} -->\\n[\\s\\S]*?<!-- /bench:${name} -->\\n?`);
  const updated = pattern.test(text)
    ? text.replace(pattern, () => block)
    : `${text}${text === '' || text.endsWith('\n\n') ? '' : text.endsWith('\n') ? '\n' : '\n\n'}${block}`;
  await writeFile(RESULTS, updated);
}

function wrap(name: string, markdown: string): string {
  return `<!-- bench:${name} -->\n${markdown.trimEnd()}\n<!-- /bench:${name} -->\n`;
}

/** Prints a bench's report and writes it as its section of bench/results.md. */
export async function publishReport(name: string, report: string[]): Promise<void> {
  const markdown = report.join('\n');
  console.log(markdown);
  await updateResults(name, markdown);
}

/** The report of a bench that failed: its title and the error; the stack goes to the log. */
export function failureReport(title: string, error: unknown, log: (line: string) => void): string[] {
  log(String(error instanceof Error ? error.stack : error));
  return [`# ${title}`, '', `The bench failed: ${error instanceof Error ? error.message : String(error)}`];
}
