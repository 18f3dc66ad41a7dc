// The drift alert e-mail, as text and HTML: which connection in which environment, the severity
// counts, the most severe changes, and a link to the report in the web application. Pure: the
// sender (drift-alert.ts) gathers the data and hands the message to the mailer.
import type { SchemaDiff } from '../../engine/schema/diff.ts';
import type { Severity } from '../../engine/schema/severity.ts';
import { toTimestamp } from '../../http/schemas.ts';
import type { Connection, DriftReport, Project } from '../../store/tables.ts';

/** The changes named in the message; the report has the rest. */
export const MOST_SEVERE_SHOWN = 10;

const RANK: Record<Severity, number> = { critical: 3, moderate: 2, minor: 1, cosmetic: 0 };

export interface DriftAlertInput {
  report: Pick<DriftReport, 'id' | 'severity' | 'summary' | 'diff' | 'created_at'>;
  connection: Pick<Connection, 'name' | 'dialect' | 'host' | 'database' | 'environment'>;
  project: Pick<Project, 'id' | 'name'>;
  /** The web application's address (PUBLIC_URL). */
  publicUrl: string;
}

export interface DriftAlertMessage {
  subject: string;
  text: string;
  html: string;
  link: string;
}

interface Line {
  severity: Severity;
  text: string;
}

/** Every change as one line, most severe first (a stable sort keeps the diff's order within a level). */
export function changeLines(diff: SchemaDiff): Line[] {
  const detail = (from: string | null, to: string | null) => {
    if (from !== null && to !== null) return ` (${from} → ${to})`;
    if (to !== null) return ` (${to})`;
    if (from !== null) return ` (was ${from})`;
    return '';
  };
  const lines: Line[] = [
    ...diff.tables_removed.map((t) => ({ severity: t.severity, text: `table ${t.table} dropped` })),
    ...diff.tables_modified.flatMap((t) =>
      t.changes.map((c) => ({
        severity: c.severity,
        text: `${t.table}: ${c.kind.replaceAll('_', ' ')} ${c.object}${detail(c.from, c.to)}`,
      })),
    ),
    ...diff.tables_added.map((t) => ({ severity: t.severity, text: `table ${t.table} added` })),
  ];
  return lines.sort((a, b) => RANK[b.severity] - RANK[a.severity]);
}

export function composeDriftAlert({
  report,
  connection,
  project,
  publicUrl,
}: DriftAlertInput): DriftAlertMessage {
  const { critical, moderate, minor } = report.summary;
  const counts = `${critical} critical, ${moderate} moderate, ${minor} minor`;
  const link = `${publicUrl}/projects/${project.id}/drifts/${report.id}`;
  const lines = changeLines(report.diff as SchemaDiff);
  const shown = lines.slice(0, MOST_SEVERE_SHOWN);
  const more = lines.length - shown.length;
  const where = `${connection.dialect}, ${connection.host} / ${connection.database}`;
  const detected = toTimestamp(report.created_at);

  const subject = `[dbops] Schema drift on "${connection.name}" (${connection.environment}): ${counts}`;
  const text = [
    `Schema drift was detected on connection "${connection.name}" of project "${project.name}".`,
    '',
    `Connection:  ${connection.name} (${where})`,
    `Environment: ${connection.environment}`,
    `Severity:    ${report.severity} (${counts})`,
    `Detected at: ${detected}`,
    '',
    'Most severe changes:',
    ...shown.map((line) => `  [${line.severity}] ${line.text}`),
    ...(more > 0 ? [`  … and ${more} more`] : []),
    '',
    'Review and acknowledge the report:',
    link,
    '',
  ].join('\n');

  const item = (line: Line) => `<li><strong>${line.severity}</strong> ${escapeHtml(line.text)}</li>`;
  const html = [
    '<!doctype html><html><body style="font-family: sans-serif">',
    `<p>Schema drift was detected on connection <strong>${escapeHtml(connection.name)}</strong> of project <strong>${escapeHtml(project.name)}</strong>.</p>`,
    '<table>',
    `<tr><th align="left">Connection</th><td>${escapeHtml(connection.name)} (${escapeHtml(where)})</td></tr>`,
    `<tr><th align="left">Environment</th><td>${escapeHtml(connection.environment)}</td></tr>`,
    `<tr><th align="left">Severity</th><td>${escapeHtml(report.severity)} (${counts})</td></tr>`,
    `<tr><th align="left">Detected at</th><td>${detected}</td></tr>`,
    '</table>',
    '<p>Most severe changes:</p>',
    `<ul>${shown.map(item).join('')}${more > 0 ? `<li>… and ${more} more</li>` : ''}</ul>`,
    `<p><a href="${escapeHtml(link)}">Review and acknowledge the report</a></p>`,
    '</body></html>',
  ].join('\n');

  return { subject, text, html, link };
}

const HTML_ESCAPES: Record<string, string> = {
  '&': '&amp;',
  '<': '&lt;',
  '>': '&gt;',
  '"': '&quot;',
  "'": '&#39;',
};

/** Names and definitions come from the target database: never trusted as markup. */
function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (char) => HTML_ESCAPES[char]!);
}
