// Everything a process needs to reach target databases: the address guard, one bounded pool per
// connection, and the connections service over them. The API and each job process build it once
// and close it (its pools) when they stop.
import type { TargetsConfig } from '../../config.ts';
import { migrationDialects, type TargetDialect, dialects as targetDialects } from '../../dialects/index.ts';
import type { DialectName } from '../../engine/schema/model.ts';
import type { SecretBox } from '../../security/secret-box.ts';
import type { Db } from '../../store/db.ts';
import type { AuditService } from '../audit/audit.service.ts';
import { createConnectionPools } from './connection-pools.ts';
import { createConnectionsService } from './connections.service.ts';
import { createTargetGuard, type Resolver } from './target-guard.ts';

export function createTargetAccess(deps: {
  db: Db;
  audit: AuditService;
  box: SecretBox;
  now: () => Date;
  targets: TargetsConfig;
  /** The target dialects; the real ones by default. */
  dialects?: Record<DialectName, TargetDialect>;
  /** How connection hosts resolve for the address guard; the system resolver by default. */
  resolveHost?: Resolver;
}) {
  const { targets } = deps;
  const guard = createTargetGuard({
    policy: { blockPrivate: targets.blockPrivate },
    timeoutMs: targets.connectTimeoutMs,
    resolve: deps.resolveHost,
  });
  const pools = createConnectionPools({
    dialects: deps.dialects ?? targetDialects,
    guard,
    settings: {
      connectTimeoutMs: targets.connectTimeoutMs,
      statementTimeoutMs: targets.statementTimeoutMs,
      poolSize: targets.poolSize,
      idleMs: targets.poolIdleMs,
    },
  });
  const connections = createConnectionsService({
    db: deps.db,
    audit: deps.audit,
    box: deps.box,
    pools,
    guard,
    now: deps.now,
    // The one place a dialect is looked up by name: code holding a handle asks it (`handle.sql`),
    // code working on a connection's SQL without connecting asks the connections service.
    dialectOf: (connection) => migrationDialects[connection.dialect],
  });
  return { guard, pools, connections, close: () => pools.closeAll() };
}
