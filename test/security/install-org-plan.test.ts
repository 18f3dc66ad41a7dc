// Finding 8 of the attack: the install's own organization started on Starter, so drift (a core
// feature of a self-hosted install) answered 403 until the operator ran `set-plan`. docs/contract.md §11.3: the
// organization made by ADMIN_EMAIL on the first start or by `create-admin` starts on Enterprise,
// organizations made by signup on Starter, and BILLING_MODE=saas starts every one on Starter.
import { afterEach, describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config.ts';
import { bootstrapAdmin, createAdmin } from '../../src/modules/orgs/first-admin.ts';
import { createTestApp, type TestApp, uniqueEmail } from '../support/app.ts';

const PASSWORD = 'a long enough password';
const quiet = { info: () => {}, warn: () => {} };

describe('the plan a new organization starts on', () => {
  let t: TestApp | undefined;
  afterEach(async () => {
    await t?.close();
    t = undefined;
  });

  /** What the organization's owner sees: the plan, and whether drift (Enterprise only) answers. */
  async function planOf(app: TestApp, email: string) {
    const owner = await app.login(email, PASSWORD);
    return {
      plan: (await owner.get('/api/v1/billing/subscription')).body.plan,
      drift: (await owner.get('/api/v1/drifts')).status,
    };
  }

  async function signUp(app: TestApp) {
    const email = uniqueEmail('signup');
    const response = await app.app.inject({
      method: 'POST',
      url: '/api/v1/auth/signup',
      payload: { email, password: PASSWORD, name: 'Sam', organization_name: 'Signed up' },
    });
    expect(response.statusCode).toBe(201);
    return email;
  }

  it('self-hosted: ADMIN_EMAIL and create-admin on Enterprise (drift works), signup on Starter', async () => {
    t = await createTestApp();
    const first = uniqueEmail('admin');
    await bootstrapAdmin(
      t.store.db,
      t.composition.orgs,
      { email: first, password: PASSWORD, org: 'Ours' },
      quiet,
    );
    expect(await planOf(t, first)).toEqual({ plan: 'enterprise', drift: 200 });

    const second = uniqueEmail('cli');
    await createAdmin(t.composition.orgs, { email: second, password: PASSWORD, orgName: 'Also ours' });
    expect(await planOf(t, second)).toEqual({ plan: 'enterprise', drift: 200 });

    expect(await planOf(t, await signUp(t))).toEqual({ plan: 'starter', drift: 403 });
  });

  it('BILLING_MODE=saas: every organization on Starter', async () => {
    t = await createTestApp({ billing: { mode: 'saas' } });
    const first = uniqueEmail('admin');
    await bootstrapAdmin(
      t.store.db,
      t.composition.orgs,
      { email: first, password: PASSWORD, org: 'Host' },
      quiet,
    );
    expect(await planOf(t, first)).toEqual({ plan: 'starter', drift: 403 });
    const second = uniqueEmail('cli');
    await createAdmin(t.composition.orgs, { email: second, password: PASSWORD, orgName: 'Tenant' });
    expect(await planOf(t, second)).toEqual({ plan: 'starter', drift: 403 });
    expect(await planOf(t, await signUp(t))).toEqual({ plan: 'starter', drift: 403 });
  });

  it('reads BILLING_MODE (self_hosted by default) and refuses other values', () => {
    expect(loadConfig({}).billing.mode).toBe('self_hosted');
    expect(loadConfig({ BILLING_MODE: 'saas' }).billing.mode).toBe('saas');
    expect(() => loadConfig({ BILLING_MODE: 'free' })).toThrow(/BILLING_MODE must be self_hosted or saas/);
  });
});
