import { execFile } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, type TestApp } from '../../../test/support/app.ts';
import { scrubbedEnv } from '../../../test/support/server-process.ts';
import { seedDataDir } from '../../../test/support/store-template.ts';
import { cliActor } from '../../core/actors.ts';
import { AppError } from '../../core/errors.ts';
import { openStore } from '../../store/db.ts';
import { createAuditService } from '../audit/audit.service.ts';
import { type BillingService, createBillingService, type SetPlanInput } from './billing.service.ts';

const ROOT = path.resolve(import.meta.dirname, '../../..');

describe('billing: setting an organization’s plan', () => {
  let t: TestApp;
  let billing: BillingService;
  const actor = cliActor('set-plan');

  beforeAll(async () => {
    t = await createTestApp();
    billing = createBillingService({
      db: t.store.db,
      audit: createAuditService({ db: t.store.db, now: t.now }),
      now: t.now,
    });
  });
  afterAll(() => t.close());

  const orgRow = (id: string) =>
    t.store.db
      .selectFrom('organizations')
      .select(['plan', 'rate_limit_per_minute', 'rate_limit_per_hour'])
      .where('id', '=', id)
      .executeTakeFirstOrThrow();

  async function refusal(input: SetPlanInput): Promise<{ status: number; message: string }> {
    try {
      await billing.setPlan(actor, input);
    } catch (error) {
      if (!(error instanceof AppError)) throw error;
      const message =
        typeof error.detail === 'string' ? error.detail : error.detail.map((d) => d.msg).join('; ');
      return { status: error.status, message };
    }
    throw new Error('setPlan accepted what it should refuse');
  }

  it('sets the plan by id or exact name, audited as a system action, and the next request sees it', async () => {
    const { orgId, owner } = await t.createOrg('Plan by name');
    expect((await owner.get('/api/v1/auth/me')).headers['x-ratelimit-limit']).toBe('60');

    const pro = await billing.setPlan(actor, { org: 'Plan by name', plan: 'pro' });
    expect(pro).toMatchObject({
      id: orgId,
      plan: 'pro',
      rate_limit_per_minute: null,
      rate_limit_per_hour: null,
    });
    expect((await owner.get('/api/v1/auth/me')).headers['x-ratelimit-limit']).toBe('300');
    expect((await owner.get('/api/v1/orgs/current')).body.plan).toBe('pro');

    await billing.setPlan(actor, { org: orgId, plan: 'enterprise', perMinute: 2_000, perHour: 80_000 });
    expect(await orgRow(orgId)).toEqual({
      plan: 'enterprise',
      rate_limit_per_minute: 2_000,
      rate_limit_per_hour: 80_000,
    });
    expect((await owner.get('/api/v1/auth/me')).headers['x-ratelimit-limit']).toBe('2000');
    // Through an API key too: the key's lookup carries the plan.
    const key = await t.keyClient(owner, ['read']);
    expect((await key.get('/api/v1/auth/me')).headers['x-ratelimit-limit']).toBe('2000');

    const audit = await t.store.db
      .selectFrom('audit_log')
      .selectAll()
      .where('action', '=', 'org.plan.update')
      .where('org_id', '=', orgId)
      .orderBy('created_at')
      .execute();
    expect(audit).toHaveLength(2);
    expect(audit[1]).toMatchObject({
      actor_type: 'system',
      actor_id: null,
      actor_label: 'cli set-plan',
      target_type: 'organization',
      target_id: orgId,
      target_label: 'Plan by name',
      outcome: 'success',
      details: {
        from: { plan: 'pro', rate_limit_per_minute: null, rate_limit_per_hour: null },
        to: { plan: 'enterprise', rate_limit_per_minute: 2_000, rate_limit_per_hour: 80_000 },
      },
    });
    // The organization's admins read it in their audit log.
    const listed = await owner.get('/api/v1/audit?action=org.plan.update');
    expect(listed.body.total).toBe(2);
  });

  it('states the whole result each time: omitted limits go back to the default, other plans drop them', async () => {
    const { orgId } = await t.createOrg('Restating');
    await billing.setPlan(actor, { org: orgId, plan: 'enterprise', perMinute: 2_000, perHour: 80_000 });
    await billing.setPlan(actor, { org: orgId, plan: 'enterprise', perHour: 90_000 });
    expect(await orgRow(orgId)).toEqual({
      plan: 'enterprise',
      rate_limit_per_minute: null,
      rate_limit_per_hour: 90_000,
    });
    await billing.setPlan(actor, { org: orgId, plan: 'starter' });
    expect(await orgRow(orgId)).toEqual({
      plan: 'starter',
      rate_limit_per_minute: null,
      rate_limit_per_hour: null,
    });
  });

  it('refuses what makes no sense, with a clear message, and changes nothing', async () => {
    const { orgId } = await t.createOrg('Refusals');
    await billing.setPlan(actor, { org: orgId, plan: 'pro' });
    expect(await refusal({ org: orgId, plan: 'gold' })).toEqual({
      status: 422,
      message: 'Unknown plan "gold": use starter, pro, enterprise',
    });
    expect(await refusal({ org: orgId, plan: 'pro', perMinute: 500 })).toEqual({
      status: 422,
      message: 'Custom rate limits are only for the Enterprise plan, not Pro',
    });
    expect(await refusal({ org: orgId, plan: 'starter', perHour: 500 })).toMatchObject({
      message: 'Custom rate limits are only for the Enterprise plan, not Starter',
    });
    for (const perMinute of [0, -5, 1.5, 3_000_000_000]) {
      expect(await refusal({ org: orgId, plan: 'enterprise', perMinute })).toEqual({
        status: 422,
        message: 'The per-minute limit must be an integer from 1 to 2147483647',
      });
    }
    expect(await refusal({ org: orgId, plan: 'enterprise', perMinute: 2_000, perHour: 1_000 })).toEqual({
      status: 422,
      message: 'The per-minute limit (2000) is more than the per-hour limit (1000)',
    });
    // Against the Enterprise default of 50000 an hour.
    expect(await refusal({ org: orgId, plan: 'enterprise', perMinute: 60_000 })).toMatchObject({
      message: 'The per-minute limit (60000) is more than the per-hour limit (50000)',
    });
    expect(await refusal({ org: 'No such org', plan: 'pro' })).toEqual({
      status: 404,
      message: 'No organization has the id or name "No such org"',
    });
    expect(await refusal({ org: '00000000-0000-4000-8000-000000000000', plan: 'pro' })).toMatchObject({
      status: 404,
    });
    expect(await orgRow(orgId)).toEqual({
      plan: 'pro',
      rate_limit_per_minute: null,
      rate_limit_per_hour: null,
    });
  });

  it('asks for the id when several organizations have the name', async () => {
    const first = await t.createOrg('Twins');
    const second = await t.createOrg('Twins');
    const refused = await refusal({ org: 'Twins', plan: 'pro' });
    expect(refused.status).toBe(409);
    expect(refused.message).toMatch(/^2 organizations are named "Twins": give the id \(/);
    expect(refused.message).toContain(first.orgId);
    expect(refused.message).toContain(second.orgId);
    // Names match exactly, not by case or prefix.
    expect((await refusal({ org: 'twins', plan: 'pro' })).status).toBe(404);
    await billing.setPlan(actor, { org: second.orgId, plan: 'pro' });
    expect((await orgRow(second.orgId)).plan).toBe('pro');
    expect((await orgRow(first.orgId)).plan).toBe('starter');
  });

  it('keeps unknown plans and non-positive limits out of the store itself', async () => {
    const { orgId } = await t.createOrg('Constraints');
    await expect(
      t.store.db
        .updateTable('organizations')
        .set({ plan: 'gold' as 'pro' })
        .where('id', '=', orgId)
        .execute(),
    ).rejects.toThrow(/organizations_plan_known/);
    await expect(
      t.store.db
        .updateTable('organizations')
        .set({ rate_limit_per_hour: 0 })
        .where('id', '=', orgId)
        .execute(),
    ).rejects.toThrow(/organizations_rate_limits_positive/);
  });
});

describe('billing: npm run cli -- set-plan', () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'dbops-set-plan-'));
  const env: NodeJS.ProcessEnv = {
    ...scrubbedEnv(),
    DATA_DIR: path.join(dir, 'data'),
    ARGON2_MEMORY_KIB: '64',
    ARGON2_ITERATIONS: '1',
    LOG_LEVEL: 'silent',
  };

  afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));

  async function cli(...args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
    try {
      const { stdout, stderr } = await promisify(execFile)(process.execPath, ['src/main.ts', ...args], {
        cwd: ROOT,
        env,
      });
      return { code: 0, stdout, stderr };
    } catch (error) {
      const failed = error as { code: number; stdout: string; stderr: string };
      return { code: failed.code, stdout: failed.stdout, stderr: failed.stderr };
    }
  }

  // Six processes, each opening the embedded store: seconds each on a busy machine. The store is
  // the migrated template's, so that the first of them does not run initdb too.
  it('sets the plan and custom limits of an organization named on the command line', async () => {
    await seedDataDir(env.DATA_DIR!);
    const created = await cli(
      'create-admin',
      '--email',
      'cli@example.com',
      '--password',
      'long enough',
      '--org',
      'Cli Org',
    );
    expect(created.code).toBe(0);
    const [, orgId] = /\(([0-9a-f-]{36})\)/.exec(created.stdout) ?? [];
    expect(orgId).toBeDefined();

    const set = await cli('set-plan', '--org', 'Cli Org', '--plan', 'enterprise', '--per-minute', '2500');
    expect(set).toMatchObject({ code: 0, stderr: '' });
    expect(set.stdout.trim()).toBe(
      `Organization "Cli Org" (${orgId}) is on the Enterprise plan: 2500 requests per minute and 50000 per hour per user (its own limits)`,
    );

    const wrong = await cli('set-plan', '--org', orgId!, '--plan', 'pro', '--per-hour', '5000');
    expect(wrong.code).toBe(1);
    expect(wrong.stderr.trim()).toBe('Custom rate limits are only for the Enterprise plan, not Pro');
    const garbled = await cli('set-plan', '--org', orgId!, '--plan', 'enterprise', '--per-minute', '10k');
    expect(garbled.code).toBe(1);
    expect(garbled.stderr.trim()).toBe('--per-minute must be a positive integer (got "10k")');
    const missing = await cli('set-plan', '--plan', 'pro');
    expect(missing.code).toBe(1);
    expect(missing.stderr).toMatch(/^set-plan needs --org and --plan/);

    const store = await openStore({ kind: 'pglite', dataDir: env.DATA_DIR! });
    try {
      const org = await store.db
        .selectFrom('organizations')
        .select(['plan', 'rate_limit_per_minute', 'rate_limit_per_hour'])
        .where('id', '=', orgId!)
        .executeTakeFirstOrThrow();
      expect(org).toEqual({ plan: 'enterprise', rate_limit_per_minute: 2_500, rate_limit_per_hour: null });
      const audit = await store.db
        .selectFrom('audit_log')
        .select(['actor_type', 'actor_label'])
        .where('action', '=', 'org.plan.update')
        .execute();
      expect(audit).toEqual([{ actor_type: 'system', actor_label: 'cli set-plan' }]);
    } finally {
      await store.close();
    }
  }, 120_000);
});
