// Connections to target databases: CRUD with the password sealed at rest and never handed out, the
// address guard on every host, connection tests, and live introspection through the pools. Other
// modules reach a target only through `introspect` here (or the pools), never with a driver.
import { randomUUID, X509Certificate } from 'node:crypto';
import { isIP } from 'node:net';
import type { Actor } from '../../core/actors.ts';
import { AppError, conflict, forbidden, invalid } from '../../core/errors.ts';
import { TARGET_ERROR_HEADER, TargetError } from '../../dialects/errors.ts';
import {
  type MigrationDialect,
  maskSecret,
  type TargetHandle,
  type TestResult,
} from '../../dialects/index.ts';
import type { SchemaModel } from '../../engine/schema/model.ts';
import { withTargetContext } from '../../observability/target-context.ts';
import { decide, isOrgAdmin } from '../../security/policy.ts';
import type { SecretBox } from '../../security/secret-box.ts';
import type { Db } from '../../store/db.ts';
import { type PageRequest, paginate } from '../../store/paging.ts';
import type { Connection, ConnectionDialect, Environment, SslMode } from '../../store/tables.ts';
import type { AuditService } from '../audit/audit.service.ts';
import { requireProject } from '../projects/projects.access.ts';
import type { ConnectionPools, Endpoint, PoolTarget } from './connection-pools.ts';
import { requireConnection } from './connections.access.ts';
import {
  connectionsQuery,
  deleteConnection,
  findConnectionById,
  findConnectionByName,
  hasPendingDrift,
  insertConnection,
  lockConnection,
  updateConnection,
} from './connections.repo.ts';
import type { ConnectionView } from './connections.schemas.ts';
import { passwordMovingChanges, passwordRequiredMessage } from './endpoint-change.ts';
import { createOwnedTablesRegistry } from './owned-tables.ts';
import type { TargetGuard } from './target-guard.ts';

/** The secret box purpose of connection passwords: a sealed value cannot be reused elsewhere. */
export const PASSWORD_PURPOSE = 'connection-password';

export interface ConnectionInput {
  project_id: string;
  name: string;
  dialect: ConnectionDialect;
  host: string;
  port: number;
  database: string;
  username: string;
  password: string;
  ssl_mode: SslMode;
  environment: Environment;
  protected?: boolean;
  ca_cert?: string | null;
}

export type ConnectionChanges = Partial<Omit<ConnectionInput, 'project_id' | 'dialect'>>;

// RFC 1123 host names (underscores tolerated: some internal DNS uses them); IP literals are checked apart.
const HOST_NAME =
  /^(?=.{1,253}\.?$)[A-Za-z0-9_](?:[A-Za-z0-9_-]{0,61}[A-Za-z0-9_])?(?:\.[A-Za-z0-9_](?:[A-Za-z0-9_-]{0,61}[A-Za-z0-9_])?)*\.?$/;
const PEM_CERTIFICATE = /-----BEGIN CERTIFICATE-----[\s\S]+?-----END CERTIFICATE-----/g;

const duplicateName = () => conflict('A connection with this name already exists in the project');

function checkHostSyntax(host: string): void {
  if (isIP(host) === 0 && !HOST_NAME.test(host)) {
    throw invalid(['body', 'host'], 'Input should be a host name or an IP address');
  }
}

/** Every PEM block must be a certificate Node can read; at least one block. */
function checkCaCert(pem: string | null | undefined): void {
  if (pem == null) return;
  const blocks = pem.match(PEM_CERTIFICATE) ?? [];
  const readable = (block: string) => {
    try {
      new X509Certificate(block);
      return true;
    } catch {
      return false;
    }
  };
  if (blocks.length === 0 || !blocks.every(readable)) {
    throw invalid(
      ['body', 'ca_cert'],
      'Input should be one or more PEM certificates (-----BEGIN CERTIFICATE-----)',
    );
  }
}

/**
 * Whether the connection stays protected after `changes`. Becoming production protects by default;
 * leaving production never drops protection by itself (only an explicit `protected: false` does).
 */
function protectionAfter(connection: Connection, changes: ConnectionChanges): boolean {
  if (changes.protected !== undefined) return changes.protected;
  if (changes.environment === 'production' && connection.environment !== 'production') return true;
  return connection.protected;
}

/**
 * Turning protection off lifts the approval every write to the connection needs: an organization
 * owner's or admin's decision (a key needs the admin scope), whoever administers the project. True
 * when `changes` turn it off (and the actor may).
 */
function checkProtectionRemoval(actor: Actor, connection: Connection, changes: ConnectionChanges): boolean {
  if (!connection.protected || protectionAfter(connection, changes)) return false;
  const decision = decide(actor.principal, 'connection.unprotect');
  if (decision.allowed) return true;
  throw forbidden(
    isOrgAdmin(actor.principal)
      ? "Turning protection off needs an API key with the 'admin' scope"
      : 'Turning protection off requires the organization admin role',
  );
}

/** 422 on `body.password` when `changes` would send the stored password elsewhere without a new one. */
function checkPasswordFollows(connection: Connection, changes: ConnectionChanges): void {
  if (changes.password !== undefined) return;
  const moved = passwordMovingChanges(connection, changes);
  if (moved.length > 0)
    throw invalid(['body', 'password'], passwordRequiredMessage(connection, moved, changes), 'missing');
}

export type ConnectionsService = ReturnType<typeof createConnectionsService>;

export function createConnectionsService(deps: {
  db: Db;
  audit: AuditService;
  box: SecretBox;
  pools: ConnectionPools;
  guard: TargetGuard;
  now: () => Date;
  dialectOf: (connection: Pick<Connection, 'dialect'>) => MigrationDialect;
}) {
  const { db, audit, box, pools, guard, now, dialectOf } = deps;
  const ownedTables = createOwnedTablesRegistry();

  /** The connection as handed out; `driftPending` is its drift badge (read with it, or apart). */
  function viewOf(connection: Connection, driftPending = false): ConnectionView {
    const { password, ...rest } = connection;
    let hasPassword = true;
    try {
      hasPassword = box.open(password, PASSWORD_PURPOSE) !== '';
    } catch {
      // Unreadable (another SECRET_KEY): something is stored all the same.
    }
    return { ...rest, has_password: hasPassword, drift_status: driftPending ? 'pending' : 'none' };
  }

  function endpointOf(connection: Connection): Endpoint {
    let password: string;
    try {
      password = box.open(connection.password, PASSWORD_PURPOSE);
    } catch {
      throw new Error(
        `The password of connection ${connection.id} cannot be decrypted: was SECRET_KEY changed?`,
      );
    }
    return {
      host: connection.host,
      port: connection.port,
      database: connection.database,
      username: connection.username,
      password,
      ssl_mode: connection.ssl_mode,
      ca_cert: connection.ca_cert ?? undefined,
    };
  }

  function targetOf(connection: Connection): PoolTarget {
    return {
      id: connection.id,
      version: connection.updated_at.getTime(),
      dialect: connection.dialect,
      endpoint: endpointOf(connection),
    };
  }

  /** 422 on `body.host` when the guard refuses it. A name that does not resolve (yet) is accepted. */
  async function checkHostAllowed(host: string): Promise<void> {
    checkHostSyntax(host);
    const verdict = await guard.verdict(host);
    if (verdict.allowed === false) throw invalid(['body', 'host'], `Address refused: ${verdict.reason}`);
  }

  function event(action: string, connection: Connection, details?: Record<string, unknown>) {
    return {
      action,
      projectId: connection.project_id,
      target: { type: 'connection', id: connection.id, label: connection.name },
      details,
    };
  }

  /**
   * A target failure as the API's 502: names the connection and the cause in words (the message
   * starts with it), never the password. The cause's code travels in a header, so that a client can
   * tell a refused login, which must not be tried again on its own, from a failure worth one retry.
   */
  function unavailable(connection: Connection, error: TargetError, password: string): AppError {
    return new AppError(
      'target_unavailable',
      `Connection "${connection.name}" failed: ${maskSecret(error.message, password)}`,
      { [TARGET_ERROR_HEADER]: error.cause },
    );
  }

  /** The live schema of a connection, read through its pool; a target failure is a 502 AppError. */
  async function introspect(connection: Connection): Promise<SchemaModel> {
    return withTarget(connection, (handle) => handle.introspect());
  }

  /** Runs `work` with the connection's pool; a target failure is a 502 AppError. */
  async function withTarget<T>(
    connection: Connection,
    work: (handle: TargetHandle) => Promise<T>,
  ): Promise<T> {
    const target = targetOf(connection);
    const named = { id: connection.id, database: connection.database, port: connection.port };
    try {
      return await pools.use(target, (handle) => withTargetContext(named, () => work(handle)));
    } catch (error) {
      if (error instanceof TargetError) throw unavailable(connection, error, target.endpoint.password);
      throw error;
    }
  }

  return {
    viewOf,
    introspect,
    withTarget,

    /** A connection by id alone, for the service's own work (jobs, other modules' services). */
    findById: (id: string) => findConnectionById(db, id),

    async list(actor: Actor, filter: { project_id?: string }, page: PageRequest) {
      const { principal } = actor;
      if (filter.project_id !== undefined)
        await requireProject(db, actor, filter.project_id, 'connection.read');
      const { rows, total } = await paginate(
        connectionsQuery(db, {
          orgId: principal.orgId,
          projectId: filter.project_id,
          userId: principal.userId,
          seesAll: isOrgAdmin(principal),
        }),
        page,
      );
      return { rows: rows.map(({ drift_pending, ...row }) => viewOf(row, Boolean(drift_pending))), total };
    },

    async get(actor: Actor, id: string): Promise<ConnectionView> {
      const { connection } = await requireConnection(db, actor, id, 'connection.read');
      return viewOf(connection, await hasPendingDrift(db, id));
    },

    async create(actor: Actor, input: ConnectionInput): Promise<ConnectionView> {
      await requireProject(db, actor, input.project_id, 'connection.create');
      checkCaCert(input.ca_cert);
      // Resolved before the transaction: a slow DNS answer must not hold the store.
      await checkHostAllowed(input.host);
      const name = input.name.trim();
      return db.transaction().execute(async (trx) => {
        const project = await requireProject(trx, actor, input.project_id, 'connection.create');
        if (await findConnectionByName(trx, project.id, name)) throw duplicateName();
        const at = now();
        const connection = await insertConnection(trx, {
          id: randomUUID(),
          org_id: project.org_id,
          project_id: project.id,
          name,
          dialect: input.dialect,
          host: input.host,
          port: input.port,
          database: input.database,
          username: input.username,
          password: box.seal(input.password, PASSWORD_PURPOSE),
          ssl_mode: input.ssl_mode,
          ca_cert: input.ca_cert ?? null,
          environment: input.environment,
          protected: input.protected ?? input.environment === 'production',
          created_at: at,
          updated_at: at,
        });
        const { password: _, ca_cert, created_at: __, updated_at: ___, ...settings } = connection;
        await audit.record(
          trx,
          actor,
          event('connection.create', connection, { ...settings, ca_cert: ca_cert !== null }),
        );
        return viewOf(connection);
      });
    },

    /**
     * Edits a connection. An edit that would send the stored password elsewhere (endpoint-change.ts)
     * must carry a password, and one that turns protection off is an organization admin's: both are
     * decided on the row as it is when the change is written (locked), and answered early too.
     */
    async update(actor: Actor, id: string, changes: ConnectionChanges): Promise<ConnectionView> {
      const { connection: before } = await requireConnection(db, actor, id, 'connection.update');
      if (Object.keys(changes).length === 0) return viewOf(before, await hasPendingDrift(db, id));
      checkProtectionRemoval(actor, before, changes);
      checkCaCert(changes.ca_cert);
      if (changes.host !== undefined) await checkHostAllowed(changes.host);
      checkPasswordFollows(before, changes);
      const name = changes.name?.trim();
      const updated = await db.transaction().execute(async (trx) => {
        await lockConnection(trx, id);
        const { connection } = await requireConnection(trx, actor, id, 'connection.update');
        const unprotects = checkProtectionRemoval(actor, connection, changes);
        checkPasswordFollows(connection, changes);
        if (name !== undefined && (await findConnectionByName(trx, connection.project_id, name, id)))
          throw duplicateName();
        const { password, ...settings } = changes;
        const protectedNow = protectionAfter(connection, changes);
        // Strictly later than before: the pools key on it, and an edit must never reuse an old pool.
        const at = new Date(Math.max(now().getTime(), connection.updated_at.getTime() + 1));
        const row = await updateConnection(trx, id, {
          ...settings,
          ...(name !== undefined && { name }),
          ...(password !== undefined && { password: box.seal(password, PASSWORD_PURPOSE) }),
          protected: protectedNow,
          updated_at: at,
        });
        const { ca_cert, ...shown } = settings;
        await audit.record(
          trx,
          actor,
          event('connection.update', row, {
            changes: {
              ...shown,
              ...(name !== undefined && { name }),
              ...(ca_cert !== undefined && { ca_cert: ca_cert !== null }),
              ...(protectedNow !== connection.protected && { protected: protectedNow }),
            },
            password_changed: password !== undefined,
          }),
        );
        if (unprotects)
          await audit.record(
            trx,
            actor,
            event('connection.unprotect', row, {
              protected: { from: true, to: false },
              environment: { from: connection.environment, to: row.environment },
            }),
          );
        return row;
      });
      pools.evict(id);
      return viewOf(updated, await hasPendingDrift(db, id));
    },

    /**
     * The dialect of a connection's SQL, for work that needs no connection (parsing, planning,
     * naming tables); with a handle, `handle.sql` is the same.
     */
    dialectOf,

    /** Where a module declares the tables it keeps in target databases (see owned-tables.ts). */
    addOwnedTables: ownedTables.add,

    /**
     * Deletes the connection with what hangs off it (its patches…). The tables the modules keep in
     * its database are dbops's own, of no use without their records: they are dropped first when
     * the database can be reached, else named in the audit entry for someone to drop.
     */
    async remove(actor: Actor, id: string): Promise<void> {
      const { connection: found } = await requireConnection(db, actor, id, 'connection.delete');
      const tables = await ownedTables.of(db, found);
      let backupsLeft: string[] = [];
      if (tables.length > 0)
        await withTarget(found, (handle) =>
          handle.transaction(
            async (tx) => {
              for (const table of tables) await tx.query(`DROP TABLE IF EXISTS ${table}`);
            },
            { commit: true },
          ),
        ).catch(() => {
          backupsLeft = tables;
        });
      await db.transaction().execute(async (trx) => {
        const { connection } = await requireConnection(trx, actor, id, 'connection.delete');
        await deleteConnection(trx, id);
        await audit.record(
          trx,
          actor,
          event(
            'connection.delete',
            connection,
            backupsLeft.length > 0 ? { backups_left: backupsLeft } : undefined,
          ),
        );
      });
      pools.evict(id);
    },

    /** Connects once with the stored settings; the outcome (ok or not) is the answer and is audited. */
    async test(actor: Actor, id: string): Promise<TestResult> {
      const { connection } = await requireConnection(db, actor, id, 'connection.test');
      const endpoint = endpointOf(connection);
      const result = await pools.test(connection.dialect, endpoint);
      const error = result.error && {
        ...result.error,
        message: maskSecret(result.error.message, endpoint.password),
      };
      await audit.record(db, actor, {
        ...event('connection.test', connection, {
          ok: result.ok,
          latency_ms: result.latency_ms,
          server_version: result.server_version,
          cause: error?.cause ?? null,
        }),
        outcome: result.ok ? 'success' : 'failure',
      });
      return { ...result, error };
    },

    async schema(actor: Actor, id: string): Promise<SchemaModel> {
      const { connection } = await requireConnection(db, actor, id, 'connection.read');
      return introspect(connection);
    },
  };
}
