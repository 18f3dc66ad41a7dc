// Drift in tests: an organization on a plan with a project and a way to add connections, the
// settings drift's jobs are registered with, their drift_check runs, and a logger that keeps lines.
import { setTimeout as sleep } from 'node:timers/promises';
import { expect } from 'vitest';
import type { Config } from '../../src/config.ts';
import { TARGET_DEFAULTS } from '../../src/config.ts';
import { updateOrgPlan } from '../../src/modules/billing/billing.repo.ts';
import type { Logger as JobsLogger } from '../../src/modules/module.ts';
import type { Plan } from '../../src/store/tables.ts';
import type { TestApp } from './app.ts';
import { connectionBody } from './connections.ts';

/** The web application's address in drift tests: the links of alert e-mails start with it. */
export const PUBLIC_URL = 'https://dbops.example.com';
/** Once a year: where the schedule is not under test, only the jobs a test sends run. */
export const YEARLY = '7 3 1 1 *';

export interface LogLine {
  level: string;
  obj: Record<string, unknown>;
  msg: string;
}

export function recordingLogger(): JobsLogger & { lines: LogLine[] } {
  const lines: LogLine[] = [];
  const at = (level: string) => (obj: object, msg: string) => {
    lines.push({ level, obj: obj as Record<string, unknown>, msg });
  };
  return { lines, error: at('error'), warn: at('warn'), info: at('info') };
}

export async function waitFor<T>(
  what: string,
  probe: () => Promise<T | undefined>,
  timeoutMs = 20_000,
): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await probe();
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}`);
    await sleep(100);
  }
}

export function driftJobConfig(overrides: {
  smtpUrl?: string;
  checkCron?: string;
  checkConcurrency?: number;
}): Partial<Config> {
  return {
    drift: { checkCron: overrides.checkCron ?? YEARLY, checkConcurrency: overrides.checkConcurrency ?? 2 },
    smtpUrl: overrides.smtpUrl,
    mailFrom: 'dbops <alerts@example.com>',
    publicUrl: PUBLIC_URL,
    targets: { ...TARGET_DEFAULTS, connectTimeoutMs: 3_000 },
  };
}

/** A new organization on `plan`, with a project, signed in as its owner. */
export async function orgOnPlan(t: TestApp, name: string, plan: Plan = 'enterprise') {
  const org = await t.createOrg(name);
  await updateOrgPlan(
    t.store.db,
    org.orgId,
    { plan, rate_limit_per_minute: null, rate_limit_per_hour: null },
    new Date(),
  );
  const projectId = (await org.owner.post('/api/v1/projects', { name: `${name} project` })).body.id as string;
  const connect = async (url: string, overrides: Record<string, unknown> = {}) => {
    const created = await org.owner.post('/api/v1/connections', connectionBody(projectId, url, overrides));
    expect(created.status).toBe(201);
    return created.body.id as string;
  };
  return { ...org, projectId, connect };
}

/** A connection's drift_check runs, oldest first. */
export function driftRunsOf(t: TestApp, connectionId: string) {
  return t.store.db
    .selectFrom('runs')
    .selectAll()
    .where('subject_id', '=', connectionId)
    .where('kind', '=', 'drift_check')
    .orderBy('created_at')
    .execute();
}
