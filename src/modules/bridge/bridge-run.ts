// The run handler of `bridge_run` (docs/contract.md §9.3), for the job worker. It opens a row session on each
// side, refuses a source and target that are one database (compared by the servers' identity, not
// the connection records), plans the copy on both schemas as they are now (create_tables first),
// computes the subset, then loads the tables (bridge-tables.ts), skipping those the previous failed
// or cancelled run of the same request finished. Progress is in rows, recorded at batch boundaries,
// where a cancellation stops the run (the tables being loaded roll back). Whatever happens, the
// target's foreign keys among the copied tables are restored and checked before the run ends.
// After success, a snapshot of the target is taken, of its schema read while the keys were being
// validated (with them valid), so that it is not read a third time. With an anonymization config, every table with
// a rule passes through its transforms between the two streams (bridge-anonymize.ts), so nothing
// un-anonymised is written; the config is opened before anything is. Steps that use different
// sessions and do not need each other's answers run together (both sides' introspection and
// identity; the subset, the row estimates and the target's key-rights check), which on a big copy
// is what the work around the load costs; each phase's time is logged at debug level.
//
// The run is a sequence of steps over one state (BridgeRunState): each step is a function of its
// own that reads what the earlier ones left there and adds what it found.
import { systemActor } from '../../core/actors.ts';
import { AppError, notFound } from '../../core/errors.ts';
import type { RowSession, TargetHandle } from '../../dialects/dialect.ts';
import { TargetError } from '../../dialects/errors.ts';
import { displayName, type PlannedTable, planCopy, resolveTables } from '../../engine/bridge/copy-plan.ts';
import { schemaHash } from '../../engine/schema/hash.ts';
import type { SchemaModel } from '../../engine/schema/model.ts';
import type { Db } from '../../store/db.ts';
import type { Connection, Run } from '../../store/tables.ts';
import type { ConnectionsService } from '../connections/connections.service.ts';
import type { Logger } from '../module.ts';
import { RunCancelled, type RunContext, RunFailed } from '../runs/run-handler.ts';
import { runParams } from '../runs/run-kinds.ts';
import type { SnapshotsService } from '../snapshots/snapshots.service.ts';
import { activeRunInto, liveBridgeRunIds, recordTableLoad, tablesDoneBefore } from './bridge.repo.ts';
import type { BridgeAnonymizer, InFlightAnonymization, WarmTransforms } from './bridge-anonymize.ts';
import { createMissingTables, keysAroundLoad } from './bridge-create.ts';
import { filterModeOf, identityOf } from './bridge-identity.ts';
import {
  createTargetLoader,
  ForeignKeyRightsMissing,
  type TargetLoader,
  withKeysValid,
} from './bridge-load.ts';
import { BridgeParams } from './bridge-params.ts';
import { createPhaseClock, type PhaseClock, together } from './bridge-phases.ts';
import { computeSubset, type Subset } from './bridge-subset.ts';
import { loadTables } from './bridge-tables.ts';

export interface BridgeRunDeps {
  db: Db;
  connections: Pick<ConnectionsService, 'withTarget' | 'findById'>;
  snapshots: Pick<SnapshotsService, 'takeSnapshot'>;
  logger: Logger;
  now: () => Date;
  anonymizer: Pick<BridgeAnonymizer, 'open' | 'warmUp'>;
}

/** One end of the copy: its connection's handle and the row session opened on it. */
interface Side {
  handle: TargetHandle;
  session: RowSession;
}

/** What the steps of one run share: the run as asked, then what each step found or did. */
interface BridgeRunState {
  readonly deps: BridgeRunDeps;
  readonly run: Run;
  readonly context: RunContext;
  readonly params: BridgeParams;
  readonly clock: PhaseClock;
  readonly source: Side;
  readonly target: Side;
  /** The tables committed: carried over from the previous run of the request, then this run's. */
  readonly done: { table: string; rows: number }[];
  /** Every table of the copy, parents first, once planned. */
  planned: PlannedTable[];
  sourceModel?: SchemaModel;
  /** The target's schema as the load sees it (read again after create_tables). */
  targetModel?: SchemaModel;
  /** The tables a previous run of the request finished, with their rows. */
  skip: Map<string, number>;
  /** The tables this run created (create_tables). */
  created: string[];
  /** The filters written into the reads, by planned table name. */
  filterOf: Map<string | undefined, string>;
  subset?: Subset;
  anonymization?: InFlightAnonymization;
  /** How the tables were written (copy, load_data, insert_batches). */
  methods: Set<string>;
  /** The target's schema as the copy left it, when read during the key validation. */
  after?: SchemaModel;
  /** What the run started for the transforms, handed to the anonymization when it opens. */
  takeWarm(): WarmTransforms | undefined;
}

export function createBridgeRun(deps: BridgeRunDeps) {
  return async function bridgeRun(run: Run, context: RunContext): Promise<Record<string, unknown>> {
    const params = runParams(BridgeParams, run);
    const clock = createPhaseClock();
    // Started first, so that the transforms' threads load while the schemas are read; released
    // here unless the anonymization took them over.
    let warm = params.anonymize ? deps.anonymizer.warmUp() : undefined;
    try {
      return await copyBetween(deps, run, context, params, clock, () => {
        const taken = warm;
        warm = undefined;
        return taken;
      });
    } finally {
      await warm?.close();
    }
  };
}

/** The run once its parameters are read: both connections, the copy, the snapshot after it. */
async function copyBetween(
  deps: BridgeRunDeps,
  run: Run,
  context: RunContext,
  params: BridgeParams,
  clock: PhaseClock,
  takeWarm: () => WarmTransforms | undefined,
): Promise<Record<string, unknown>> {
  const { source, target } = await findConnections(deps, run, params, clock);
  let after: SchemaModel | undefined;
  const outcome = await deps.connections.withTarget(source, (srcHandle) =>
    deps.connections.withTarget(target, async (tgtHandle) => {
      const [srcSession, tgtSession] = await openSessions(srcHandle, tgtHandle, clock);
      const state: BridgeRunState = {
        deps,
        run,
        context,
        params,
        clock,
        source: { handle: srcHandle, session: srcSession },
        target: { handle: tgtHandle, session: tgtSession },
        done: [],
        planned: [],
        skip: new Map(),
        created: [],
        filterOf: new Map(),
        methods: new Set(),
        takeWarm,
      };
      try {
        const result = await copy(state);
        after = state.after;
        return result;
      } catch (error) {
        throw failureOf(state, error);
      } finally {
        await release(state);
      }
    }),
  );
  await snapshotAfter(deps, run, target, outcome, after, clock);
  deps.logger.debug?.({ run_id: run.id, phases: clock.phases() }, 'bridge run phases');
  return outcome;
}

/** Both connections, and no other bridge run already writing into the target. */
async function findConnections(
  deps: BridgeRunDeps,
  run: Run,
  params: BridgeParams,
  clock: PhaseClock,
): Promise<{ source: Connection; target: Connection }> {
  const [source, target, writing] = await clock.time('lookup', () =>
    together(
      deps.connections.findById(params.source_connection_id),
      deps.connections.findById(params.target_connection_id),
      activeRunInto(deps.db, params.target_connection_id, run.id),
    ),
  );
  if (!source || !target) throw notFound('Connection');
  if (writing?.status === 'running')
    throw new RunFailed('Another bridge run is writing into the target connection; nothing was written', {});
  return { source, target };
}

/** A row session on each side; if one cannot open, the other is closed again. */
async function openSessions(
  srcHandle: TargetHandle,
  tgtHandle: TargetHandle,
  clock: PhaseClock,
): Promise<[RowSession, RowSession]> {
  const sessions = await clock.time('sessions', () =>
    Promise.allSettled([srcHandle.rowSession(), tgtHandle.rowSession()]),
  );
  const [srcOpened, tgtOpened] = sessions;
  if (srcOpened.status === 'rejected' || tgtOpened.status === 'rejected') {
    for (const opened of sessions) if (opened.status === 'fulfilled') await opened.value.close();
    throw srcOpened.status === 'rejected' ? srcOpened.reason : (tgtOpened as PromiseRejectedResult).reason;
  }
  return [srcOpened.value, tgtOpened.value];
}

/** The copy's steps, in order; its result on success. */
async function copy(state: BridgeRunState): Promise<Record<string, unknown>> {
  await readBothSides(state);
  await planTables(state);
  const prepared = await prepareLoad(state);
  let failure: unknown;
  try {
    await loadAll(state, prepared);
  } catch (error) {
    failure = error;
  }
  await restoreKeys(state, prepared.loader, failure);
  return successResult(state);
}

/** The run's result so far: what is loaded, what is not. */
function resultOf(state: BridgeRunState, extra: Record<string, unknown> = {}): Record<string, unknown> {
  const { planned } = state;
  // In the plan's order (parents first), those carried over first: tables load side by side and
  // commit in any order.
  const rank = (name: string) =>
    (state.skip.has(name) ? 0 : planned.length) + planned.findIndex((t) => t.name === name);
  const done = [...state.done].sort((a, b) => rank(a.table) - rank(b.table));
  return {
    tables: done,
    rows_total: done.reduce((sum, t) => sum + t.rows, 0),
    tables_done: done.map((t) => t.table),
    tables_not_done: planned.map((t) => t.name).filter((name) => !done.some((d) => d.table === name)),
    ...extra,
  };
}

/**
 * Both schemas, both servers' identities, the source's filter reading and what a previous run
 * finished, read at once (nothing is written before the identities are compared, and introspection
 * only reads); then refuses a copy into its own source, and schemas or a filter reading that changed
 * since the request was checked (and approved against them).
 */
async function readBothSides(state: BridgeRunState): Promise<void> {
  const { source, target, params, clock: c, run } = state;
  const [sourceIdentity, targetIdentity, sourceModel, targetModel, skip, filterMode] = await together(
    c.time('identity', () => identityOf(source.session, source.handle)),
    c.time('identity', () => identityOf(target.session, target.handle)),
    c.time('introspect_source', () => source.handle.introspect()),
    c.time('introspect_target', () => target.handle.introspect()),
    c.time('tables_done_before', () => tablesDoneBefore(state.deps.db, run.subject_id!, run)),
    c.time('filter_mode', () => filterModeOf(source.session, source.handle)),
  );
  if (sourceIdentity === targetIdentity)
    throw new RunFailed(
      'The source and the target are the same database (two connections reach it); nothing was written',
      {},
    );
  if (
    schemaHash(sourceModel) !== params.source_schema_hash ||
    schemaHash(targetModel) !== params.target_schema_hash
  )
    throw new RunFailed(
      'The schema of the source or the target changed since this copy was requested (and approved against it): request it again; nothing was written',
      {},
    );
  // The conditions were parsed as the source read them then: under another sql_mode the same
  // text may mean something else (docs/contract.md §9.3). A run queued before they were stored parsed has none.
  const conditions = params.filters !== undefined || params.subset?.where !== undefined;
  if (
    conditions &&
    (params.source_filter_mode !== filterMode ||
      (params.filters !== undefined && params.filter_sql === undefined) ||
      (params.subset?.where !== undefined && params.subset_where_sql === undefined))
  )
    throw new RunFailed(
      "The source's sql_mode changed since this copy was requested (it decides how its filters read), or the request predates parsed filters: request it again; nothing was written",
      {},
    );
  state.sourceModel = sourceModel;
  state.targetModel = targetModel;
  state.skip = skip;
}

/**
 * The tables to copy and how: resolved on both schemas, every column checked before anything is
 * created (a refused column must not leave created tables behind), the anonymization opened, the
 * missing tables created, then the plan on the target as it now is.
 */
async function planTables(state: BridgeRunState): Promise<void> {
  const { params, source, target, clock } = state;
  const sourceModel = state.sourceModel!;
  let targetModel = state.targetModel!;
  const { tables, problems } = resolveTables(sourceModel, targetModel, params);
  if (problems.length > 0)
    throw new RunFailed(`${problems.map((p) => p.message).join('; ')}: nothing was written`, {});
  const kinds = {
    source: source.handle.sql.rows.valueKind,
    target: target.handle.sql.rows.valueKind,
    refusal: target.handle.sql.rows.refusal,
  };
  const dry = planCopy(sourceModel, targetModel, tables, kinds, (t) => t);
  if (dry.problems.length > 0) throw new RunFailed(`${dry.problems.join('; ')}: nothing was written`, {});
  if (params.anonymize)
    state.anonymization = await state.deps.anonymizer.open(
      params.anonymize.config_id,
      params.anonymize.binding,
      sourceModel,
      state.takeWarm(),
    );
  if (params.create_tables) {
    state.created = await clock.time('create_tables', () =>
      createMissingTables({
        source: sourceModel,
        target: targetModel,
        tables,
        dialect: target.handle.sql,
        handle: target.handle,
        kindOf: source.handle.sql.rows.valueKind,
      }),
    );
    if (state.created.length > 0)
      targetModel = await clock.time('introspect_created', () => target.handle.introspect());
  }
  state.targetModel = targetModel;
  const plan = planCopy(sourceModel, targetModel, tables, kinds);
  if (plan.problems.length > 0)
    throw new RunFailed(`${plan.problems.join('; ')}: nothing was written`, {
      tables_created: state.created,
    });
  state.planned = plan.tables;
  state.filterOf = new Map(
    Object.entries(params.filter_sql ?? {}).map(([name, condition]) => [
      plannedNamed(state, name)?.name,
      condition,
    ]),
  );
  for (const t of state.planned)
    if (state.skip.has(t.name)) state.done.push({ table: t.name, rows: state.skip.get(t.name)! });
}

/** The request names tables as `schema.table` or bare; the plan as the source calls them. */
function plannedNamed(state: BridgeRunState, name: string): PlannedTable | undefined {
  return state.planned.find((t) => t.name === name) ?? state.planned.find((t) => t.source.name === name);
}

/** The target's loader and the source's row estimates (statistics), ready for the load. */
interface PreparedLoad {
  loader: TargetLoader;
  stats: Awaited<ReturnType<TargetHandle['tableStats']>>;
}

/**
 * The source's side (the subset, the row estimates), the target's (the loader, which checks that taking the keys off
 * is allowed) and the store's (the tables carried over) at once: each on its own session or pool.
 */
async function prepareLoad(state: BridgeRunState): Promise<PreparedLoad> {
  const { params, source, target, clock: c, planned, run } = state;
  const tgtDialect = target.handle.sql;
  const subsetRequest = params.subset;
  const [stats, loader] = await together(
    // Every planned table's: a subset estimates a leaf it reads through from its parent's too.
    c.time('table_stats', () =>
      source.handle.tableStats(planned.map((t) => ({ schema: t.source.schema, name: t.source.name }))),
    ),
    c.time('loader_setup', () =>
      createTargetLoader({
        session: target.session,
        spareSession: () => target.handle.rowSession(),
        rows: tgtDialect.rows,
        sql: tgtDialect,
        targetTables: state.targetModel!.tables,
        copied: planned.map((t) => t.target!),
        mode: params.mode,
        keysAroundLoad: keysAroundLoad(
          planned.filter((t) => state.created.includes(displayName(t.target!))).map((t) => t.target!),
          tgtDialect,
          { flavor: state.targetModel!.flavor, mode: params.mode },
          // Replaced tables that were there before: their plain indexes, built again after the rows.
          planned.filter((t) => !state.created.includes(displayName(t.target!))).map((t) => t.target!),
        ),
        // What the interrupted hook puts back if the process dies with the keys off (bridge-interrupted.ts).
        journal: (keys) =>
          state.context.report({ ...resultOf(state), ...(keys && { keys_set_aside: keys }) }),
      }),
    ),
    !subsetRequest
      ? Promise.resolve()
      : c.time('subset', async () => {
          state.subset = await computeSubset({
            session: source.session,
            sql: source.handle.sql,
            rows: source.handle.sql.rows,
            tables: planned,
            request: {
              ...subsetRequest,
              table: plannedNamed(state, subsetRequest.table)?.name ?? subsetRequest.table,
              where: params.subset_where_sql,
            },
            filtered: new Set([...state.filterOf.keys()].filter((name) => name !== undefined)),
            runId: run.id,
            liveRunIds: await liveBridgeRunIds(state.deps.db),
          });
        }),
    c.time('store_writes', async () => {
      for (const t of planned)
        if (state.skip.has(t.name))
          await recordTableLoad(state.deps.db, {
            runId: run.id,
            table: t.name,
            rows: state.skip.get(t.name)!,
            carriedOver: true,
            at: state.deps.now(),
          });
    }),
  );
  return { loader, stats };
}

/** Loads every table not carried over, with its filter and subset condition, recording each as it commits. */
async function loadAll(state: BridgeRunState, { loader, stats }: PreparedLoad): Promise<void> {
  const { source, planned, subset } = state;
  const todo = planned.filter((t) => !state.skip.has(t.name));
  const sourceRows = (t: PlannedTable) =>
    Math.max(0, stats.find((s) => s.schema === t.source.schema && s.name === t.source.name)?.rows ?? 0);
  const estimate = (t: PlannedTable) => (subset ? subset.estimate(t, sourceRows) : sourceRows(t));
  await loadTables({
    db: state.deps.db,
    runId: state.run.id,
    now: state.deps.now,
    context: state.context,
    clock: state.clock,
    first: { source: source.session, target: state.target.session },
    // A subset's key tables live in the first source session: its tables load there.
    ...(!subset && { openLane: () => openLane(state) }),
    loader,
    todo,
    estimate,
    whereOf: (table) => {
      const conditions = [
        ...(state.filterOf.has(table.name) ? [`(${state.filterOf.get(table.name)})`] : []),
        ...(subset ? [subset.whereOf(table)] : []),
      ];
      return conditions.length > 0 ? conditions.join(' AND ') : undefined;
    },
    anonymization: state.anonymization,
    onLoaded(table, written) {
      state.methods.add(written.method);
      state.done.push({ table: table.name, rows: written.rows });
    },
  });
}

/** Another row session on each side, for a table to load beside the others. */
async function openLane(state: BridgeRunState) {
  const [source, target] = await openSessions(state.source.handle, state.target.handle, state.clock);
  return {
    source,
    target,
    async close() {
      await target.close();
      await source.close();
    },
  };
}

/**
 * Keys come back checked whatever happened; a failure to check them is the run's failure. The
 * snapshot taken after success is of the schema as the run read it, with the keys it validated
 * (withKeysValid): a copy changes no schema (the keys set aside go back as they were). Tables it
 * created got their keys and indexes after the load: the target's schema is then read again,
 * meanwhile.
 */
async function restoreKeys(state: BridgeRunState, loader: TargetLoader, failure: unknown): Promise<void> {
  const { clock, target } = state;
  const [keyFailures, during] = await together(
    clock.time('validate_keys', () => loader.finish()),
    failure !== undefined
      ? Promise.resolve(undefined)
      : state.created.length === 0
        ? Promise.resolve(state.targetModel)
        : clock.time('introspect_after', () => target.handle.introspect().catch(() => undefined)),
  );
  if (failure !== undefined) throw failure;
  if (keyFailures.length > 0)
    throw new RunFailed(`The rows were copied but ${keyFailures.join('; ')}`, resultOf(state));
  if (during) state.after = withKeysValid(during, loader.validated());
}

function successResult(state: BridgeRunState): Record<string, unknown> {
  const { planned, params, subset, done } = state;
  return resultOf(state, {
    skipped_columns: planned
      .filter((t) => t.skippedColumns.length > 0)
      .map((t) => ({ table: t.name, columns: t.skippedColumns })),
    tables_created: state.created,
    load_method: [...state.methods].join(','),
    ...(subset && {
      // A leaf read through its parent keeps exactly the rows read from it (it has no filter).
      subset_rows: Object.fromEntries([
        ...subset.counts,
        ...done.filter((d) => subset.readThrough.has(d.table)).map((d) => [d.table, d.rows] as const),
      ]),
    }),
    ...(params.anonymize && { anonymize_config_id: params.anonymize.config_id }),
  });
}

/** What the run ends with when a step threw: failed or cancelled, with what it finished. */
function failureOf(state: BridgeRunState, error: unknown): unknown {
  const done = resultOf(state).tables as BridgeRunState['done'];
  if (error instanceof RunFailed)
    return new RunFailed(error.message, { ...resultOf(state), ...error.result });
  // A cancelled run says what it finished too (docs/contract.md §9.3), so that running it again completes it.
  if (error instanceof RunCancelled) return new RunCancelled(resultOf(state));
  if (error instanceof ForeignKeyRightsMissing)
    return new RunFailed(`${error.message}; nothing was written`, resultOf(state));
  if (error instanceof TargetError || error instanceof AppError)
    return new RunFailed(
      `The copy failed${done.length > 0 ? ` after ${done.map((d) => d.table).join(', ')}` : ''}: ${error.message}`,
      resultOf(state),
    );
  return error;
}

async function release(state: BridgeRunState): Promise<void> {
  await state.anonymization?.close();
  await state.subset?.drop();
  await state.target.session.close();
  await state.source.session.close();
}

/** A snapshot of the target after a successful copy; its failure does not fail the copy. */
async function snapshotAfter(
  deps: BridgeRunDeps,
  run: Run,
  target: Connection,
  outcome: Record<string, unknown>,
  after: SchemaModel | undefined,
  clock: PhaseClock,
): Promise<void> {
  await clock.time('snapshot', () =>
    deps.snapshots
      .takeSnapshot(target.id, {
        baseline: false,
        actor: systemActor('bridge_run'),
        ...(after && { model: after }),
      })
      .then((snapshot) => Object.assign(outcome, { snapshot_id: snapshot.id }))
      .catch((error: unknown) => {
        deps.logger.warn(
          { err: error, run_id: run.id },
          'snapshot after a bridge run failed; the copy itself succeeded',
        );
        Object.assign(outcome, { snapshot_id: null });
      }),
  );
}
