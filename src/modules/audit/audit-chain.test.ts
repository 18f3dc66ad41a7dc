import { randomUUID } from 'node:crypto';
import { sql } from 'kysely';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Client, createTestApp, type TestApp, uniqueEmail } from '../../../test/support/app.ts';
import { openTemplateStore } from '../../../test/support/store-template.ts';
import { migrateTo, migrateToLatest } from '../../store/migrate.ts';
import { canonicalJson, entryHash, GENESIS } from './audit-chain.ts';

type Entry = { seq: number; prev_hash: string; hash: string; action: string; id: string };

describe('audit hash chain', () => {
  let t: TestApp;
  let orgId: string;
  let owner: Client;

  beforeAll(async () => {
    t = await createTestApp();
    ({ orgId, owner } = await t.createOrg('Chained'));
  });
  afterAll(() => t.close());

  const chain = async (client: Client) =>
    ((await client.get('/api/v1/audit?page_size=200')).body.items as Entry[]).sort((a, b) => a.seq - b.seq);
  const verify = async (client: Client) => {
    const response = await client.get('/api/v1/audit/verify');
    expect(response.status).toBe(200);
    return response.body;
  };

  it('numbers each organization from 1 without gaps and links every entry to the one before', async () => {
    for (const name of ['a', 'b', 'c'])
      expect((await owner.post('/api/v1/projects', { name })).status).toBe(201);
    const entries = await chain(owner);
    expect(entries.map((e) => e.seq)).toEqual(entries.map((_, i) => i + 1));
    expect(entries[0]!.prev_hash).toBe(GENESIS);
    for (let i = 1; i < entries.length; i++) expect(entries[i]!.prev_hash).toBe(entries[i - 1]!.hash);
    expect(new Set(entries.map((e) => e.hash)).size).toBe(entries.length);
    expect(await verify(owner)).toEqual({ ok: true, entries: entries.length, first_broken_seq: null });
    // Another organization has a chain of its own.
    const { owner: other } = await t.createOrg('Other chain');
    expect((await chain(other)).map((e) => e.seq)[0]).toBe(1);
  });

  it('serialises concurrent writers of one organization: no fork, no gap', async () => {
    const { owner: busy } = await t.createOrg('Busy');
    const created = await Promise.all(
      Array.from({ length: 12 }, (_, i) => busy.post('/api/v1/projects', { name: `p${i}` })),
    );
    expect(created.map((r) => r.status)).toEqual(Array(12).fill(201));
    const entries = await chain(busy);
    expect(entries.map((e) => e.seq)).toEqual(entries.map((_, i) => i + 1));
    expect((await verify(busy)).ok).toBe(true);
  });

  it("commits a request's change without the chain's lock, and answers once its entry is chained", async () => {
    // The chain's lock held by another session: only a PostgreSQL store has one to hold it from.
    if (!t.store.url) return;
    const { orgId: locked, owner: writer } = await t.createOrg('Locked chain');
    const holder = new pg.Client({ connectionString: t.store.url });
    await holder.connect();
    try {
      await holder.query('select pg_advisory_lock(hashtextextended($1, 0))', [`audit:${locked}`]);
      let answered = false;
      const answer = writer.post('/api/v1/projects', { name: 'while locked' }).finally(() => {
        answered = true;
      });
      const made = () =>
        t.store.db
          .selectFrom('projects')
          .select('id')
          .where('org_id', '=', locked)
          .where('name', '=', 'while locked')
          .execute();
      // The project and its entry are committed while the chain is locked; the answer waits.
      await expect.poll(async () => (await made()).length, { timeout: 10_000 }).toBe(1);
      const waiting = await t.store.db
        .selectFrom('audit_pending')
        .select('action')
        .where('org_id', '=', locked)
        .execute();
      expect(waiting.map((w) => w.action)).toEqual(['project.create']);
      await new Promise((resolve) => setTimeout(resolve, 200));
      expect(answered).toBe(false);
      await holder.query('select pg_advisory_unlock_all()');
      expect((await answer).status).toBe(201);
    } finally {
      await holder.end();
    }
    const entries = await chain(writer);
    expect(entries.at(-1)).toMatchObject({ action: 'project.create', seq: entries.length });
    expect((await verify(writer)).ok).toBe(true);
  });

  it('keeps an entry whose process died before chaining it, and chains it before the next', async () => {
    const { orgId: crashed, owner: survivor } = await t.createOrg('Crashed writer');
    expect((await survivor.post('/api/v1/projects', { name: 'before' })).status).toBe(201);
    const before = (await chain(survivor)).length;
    // What a process leaves when it dies between its commit and its pass.
    await t.store.db
      .insertInto('audit_pending')
      .values({
        id: randomUUID(),
        org_id: crashed,
        actor_type: 'system',
        actor_id: null,
        actor_label: 'test',
        api_key_id: null,
        action: 'left.waiting',
        target_type: null,
        target_id: null,
        target_label: null,
        project_id: null,
        ip: null,
        user_agent: null,
        outcome: 'success',
        details: JSON.stringify({ at: 'crash', n: 1.5 }),
        created_at: new Date(),
      })
      .execute();
    expect(await verify(survivor)).toEqual({ ok: true, entries: before + 1, first_broken_seq: null });
    expect((await survivor.post('/api/v1/projects', { name: 'after' })).status).toBe(201);
    const entries = await chain(survivor);
    expect(entries.slice(before).map((e) => [e.seq, e.action])).toEqual([
      [before + 1, 'left.waiting'],
      [before + 2, 'project.create'],
    ]);
    const left = await t.store.db
      .selectFrom('audit_pending')
      .select('id')
      .where('org_id', '=', crashed)
      .execute();
    expect(left).toEqual([]);
    expect((await verify(survivor)).ok).toBe(true);
  });

  it('stays valid after a purge redacts the personal fields', async () => {
    const { owner: boss } = await t.createOrg('Purging');
    const email = uniqueEmail('gone');
    const id = (
      await boss.post('/api/v1/users', {
        email,
        name: 'Gone',
        org_role: 'member',
        password: 'long enough pw',
      })
    ).body.id;
    const member = await t.login(email, 'long enough pw');
    expect((await member.post('/api/v1/projects', { name: 'theirs' })).status).toBe(201);
    expect((await boss.delete(`/api/v1/users/${id}`)).status).toBe(204);
    expect((await boss.post(`/api/v1/admin/users/${id}/purge`)).status).toBe(200);
    const theirs = (await boss.get(`/api/v1/audit?actor_id=${id}`)).body.items;
    expect(theirs[0]).toMatchObject({ actor_id: id, ip: null, user_agent: null });
    expect(theirs[0].actor_label).not.toBe(email);
    expect((await verify(boss)).ok).toBe(true);
  });

  it('finds a changed, a removed and a re-linked entry', async () => {
    const { orgId: tamperedOrg, owner: victim } = await t.createOrg('Tampered');
    for (const name of ['x', 'y', 'z']) await victim.post('/api/v1/projects', { name });
    const entries = await chain(victim);
    const middle = entries[2]!;
    expect((await verify(victim)).ok).toBe(true);

    await t.store.db
      .updateTable('audit_log')
      .set({ action: 'project.nothing' })
      .where('id', '=', middle.id)
      .execute();
    expect(await verify(victim)).toEqual({ ok: false, entries: 2, first_broken_seq: 3 });
    await t.store.db
      .updateTable('audit_log')
      .set({ action: middle.action })
      .where('id', '=', middle.id)
      .execute();
    expect((await verify(victim)).ok).toBe(true);

    // Rewriting the entry's own hash does not help: the next entry's link no longer matches.
    await t.store.db
      .updateTable('audit_log')
      .set({ details: JSON.stringify({ forged: true }) })
      .where('id', '=', middle.id)
      .execute();
    const [row] = await t.store.db.selectFrom('audit_log').selectAll().where('id', '=', middle.id).execute();
    await t.store.db
      .updateTable('audit_log')
      .set({ hash: entryHash({ ...row!, seq: Number(row!.seq) }) })
      .where('id', '=', middle.id)
      .execute();
    expect(await verify(victim)).toEqual({ ok: false, entries: 3, first_broken_seq: 4 });

    await t.store.db
      .deleteFrom('audit_log')
      .where('org_id', '=', tamperedOrg)
      .where('seq', '=', '1')
      .execute();
    expect(await verify(victim)).toEqual({ ok: false, entries: 0, first_broken_seq: 1 });
  });

  it('is for organization admins, of their own organization', async () => {
    const member = await t.createUser(orgId, 'member');
    expect((await member.get('/api/v1/audit/verify')).status).toBe(403);
    expect((await t.anonymous.get('/api/v1/audit/verify')).status).toBe(401);
    const key = await t.keyClient(owner, ['read']);
    expect((await key.get('/api/v1/audit/verify')).status).toBe(200);
    // Another organization's broken chain is not this one's answer.
    const { owner: stranger } = await t.createOrg('Stranger');
    await stranger.post('/api/v1/projects', { name: 's' });
    expect((await verify(owner)).ok).toBe(true);
  });

  it('writes canonical JSON: keys sorted at every depth, undefined left out', () => {
    expect(canonicalJson({ b: 1, a: { d: [2, { z: null, y: 'é' }], c: undefined } })).toBe(
      '{"a":{"d":[2,{"y":"é","z":null}]},"b":1}',
    );
  });
});

describe('audit chain migration', () => {
  it('chains the entries written before it, per organization, in their listed order', async () => {
    const store = await openTemplateStore('blank');
    try {
      await migrateTo(store.db, '0018_event_outbox_webhooks');
      const orgs = ['11111111-1111-4111-8111-111111111111', '22222222-2222-4222-8222-222222222222'];
      for (const id of orgs)
        await sql`insert into organizations (id, name) values (${id}, 'o')`.execute(store.db);
      const at = new Date('2026-01-01T00:00:00Z');
      for (let i = 0; i < 5; i++) {
        await sql`insert into audit_log (id, org_id, actor_type, action, outcome, details, created_at)
          values (gen_random_uuid(), ${orgs[i % 2]}, 'system', ${`legacy.${i}`}, 'success', ${JSON.stringify({ i })}, ${at})`.execute(
          store.db,
        );
      }
      await migrateToLatest(store.db);
      const rows = await store.db.selectFrom('audit_log').selectAll().orderBy('position').execute();
      const first = rows.filter((r) => r.org_id === orgs[0]);
      expect(first.map((r) => [Number(r.seq), r.action])).toEqual([
        [1, 'legacy.0'],
        [2, 'legacy.2'],
        [3, 'legacy.4'],
      ]);
      expect(first[0]!.prev_hash).toBe(GENESIS);
      expect(first[1]!.prev_hash).toBe(first[0]!.hash);
      for (const row of rows) expect(entryHash({ ...row, seq: Number(row.seq) })).toBe(row.hash);
    } finally {
      await store.close();
    }
  });
});
