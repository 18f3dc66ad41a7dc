import { fromKysely } from 'pg-boss';
import { openStore } from './src/store/db.ts';
import { createJobs } from './src/jobs/boss.ts';
const log = (level: string) => (obj: object, msg: string) => console.log(level, msg, JSON.stringify(obj));
for (const loc of [{ kind: 'pglite-memory' as const }]) {
  const store = await openStore(loc);
  const jobs = createJobs({ store, logger: { error: log('error'), warn: log('warn'), info: log('info') } });
  await jobs.start();
  await jobs.boss.createQueue('probe');
  // 1: send through the transaction -> atomic with it
  let id1: string | null = null;
  await store.db.transaction().execute(async (trx) => { id1 = await jobs.boss.send('probe', { a: 1 }, { db: fromKysely(trx) }); }).catch((e) => console.log('tx1 err', e.message));
  console.log('in-trx send committed, found:', (await jobs.boss.findJobs('probe', { id: id1! })).length);
  let id2: string | null = null;
  await store.db.transaction().execute(async (trx) => { id2 = await jobs.boss.send('probe', { a: 2 }, { db: fromKysely(trx) }); throw new Error('rb'); }).catch(() => {});
  console.log('in-trx send rolled back, found:', (await jobs.boss.findJobs('probe', { id: id2! })).length);
  // 3: send with outer boss inside a transaction: deadlock?
  const r = await Promise.race([
    store.db.transaction().execute(async () => { await jobs.boss.send('probe', { a: 3 }); return 'done'; }),
    new Promise((res) => setTimeout(() => res('deadlocked (2s)'), 2000)),
  ]);
  console.log('outer send inside trx:', r);
  process.exit(0);
}
