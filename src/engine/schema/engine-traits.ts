// What differs between the engines a schema model is read from, written as named facts that the
// planner, the diff, the lint and the rollback decide by. The engine looks a model's traits up here,
// by the model's `dialect`, and nowhere compares a dialect's name: a new engine is one more entry,
// and each difference it brings is a trait with a name that says what it changes.
import { type ColumnTypeInfo, describeMysqlType, describePostgresType } from './column-types.ts';
import type { DialectName } from './model.ts';

export interface EngineTraits {
  /**
   * Enums, sequences, extensions and comments are objects with statements of their own (CREATE
   * TYPE, CREATE SEQUENCE, COMMENT ON). Without: an enum is part of its column, an auto-increment
   * part of its table, a comment part of the definition it annotates.
   */
  readonly typeObjects: boolean;
  /**
   * Inheritance children and partitions are tables attached to a parent, a partition key changes
   * only by rebuilding the table, and a table has storage parameters and a replica identity.
   * Without: partitioning is a clause of one table, altered in place, and a table has options
   * (engine, collation, row format) and a column order that a plan keeps.
   */
  readonly tableLineage: boolean;
  /** A column can be placed after another (`AFTER`): plans keep the source's column order. */
  readonly placedColumns: boolean;
  /** A table is named within a schema of the database; without, its name is whole in the database. */
  readonly schemas: boolean;
  /** Check constraints and foreign keys can be renamed; without, they are dropped and added again. */
  readonly renamesConstraints: boolean;
  /**
   * A foreign key rests on an index of its columns (any index: the engine creates one when none
   * exists) and must step aside while a column it covers changes type.
   */
  readonly foreignKeysOnIndexes: boolean;
  /** Indexes are built and dropped without blocking writes (CONCURRENTLY, outside a transaction). */
  readonly concurrentIndexes: boolean;
  /** Foreign keys and checks can be added NOT VALID and validated later under a lighter lock. */
  readonly deferredValidation: boolean;
  /**
   * A generated column's expression can be dropped (the column keeps its values), and the columns
   * that compute from a retyped column step aside around it. Without: replaced whole.
   */
  readonly generatedExpressions: boolean;
  /** The catalog records the tables and types a routine's arguments and result use. */
  readonly routineUses: boolean;
  /** Tables carry row-level security policies. */
  readonly rowPolicies: boolean;
  /**
   * A table or column a view reads can be altered or dropped, leaving the view invalid until it is
   * replaced, and any view is replaced in place. Without: a view holds on to what it reads.
   */
  readonly lenientViews: boolean;
  /**
   * A column added with a default that calls a volatile function is computed for every existing
   * row (a constant default is added without a rewrite).
   */
  readonly volatileDefaultsRewrite: boolean;
  /** A NOT NULL column without a default cannot be added to a table with rows (else: filled with 0 or ''). */
  readonly refusesNotNullWithoutDefault: boolean;
  /** Dropping a column silently drops the foreign keys that use it (else: refused while one does). */
  readonly dropsReferencingKeysWithColumn: boolean;
  /** A column's type change can say how values convert (USING), and only known casts work without it. */
  readonly typeChangeCasts: boolean;
  /** Changing a type in place keeps a default the source prints the same (the server casts it along). */
  readonly defaultsFollowTypeChanges: boolean;
  /** How the engine's column types read: family and size, for what a type change does. */
  readonly describeType: (type: string) => ColumnTypeInfo;
  /**
   * Which widenings the engine does without rewriting the table: a longer varchar, varchar → text,
   * more numeric precision at the same scale, more fractional-second precision.
   */
  readonly widensInPlace: {
    readonly text: (from: string, to: string) => boolean;
    readonly numeric: boolean;
    readonly unboundedNumeric: boolean;
    readonly timePrecision: boolean;
  };
  /** Where backups of dropped data go: the prefix of their names and how a person finds one. */
  readonly backups: { readonly prefix: string; readonly displayName: (name: string) => string };
  /** How an engine's rewrite is said in advice: what waits while the table is rewritten or copied. */
  readonly rewriteWords: { readonly rewrite: string; readonly waiting: string; readonly alternative: string };
}

/** The PostgreSQL schema for backup tables (backup.ts). */
export const BACKUP_SCHEMA = 'dbops_backup';

const POSTGRESQL: EngineTraits = {
  typeObjects: true,
  tableLineage: true,
  placedColumns: false,
  schemas: true,
  renamesConstraints: true,
  foreignKeysOnIndexes: false,
  concurrentIndexes: true,
  deferredValidation: true,
  generatedExpressions: true,
  routineUses: true,
  rowPolicies: true,
  lenientViews: false,
  volatileDefaultsRewrite: true,
  refusesNotNullWithoutDefault: true,
  dropsReferencingKeysWithColumn: true,
  typeChangeCasts: true,
  defaultsFollowTypeChanges: true,
  describeType: describePostgresType,
  widensInPlace: { text: () => true, numeric: true, unboundedNumeric: true, timePrecision: true },
  backups: { prefix: '', displayName: (name) => `${BACKUP_SCHEMA}.${name}` },
  rewriteWords: {
    rewrite: 'The table is rewritten under an ACCESS EXCLUSIVE lock (even int → bigint does).',
    waiting: 'every query on it waits',
    alternative: '',
  },
};

const MYSQL: EngineTraits = {
  typeObjects: false,
  tableLineage: false,
  placedColumns: true,
  schemas: false,
  renamesConstraints: false,
  foreignKeysOnIndexes: true,
  concurrentIndexes: false,
  deferredValidation: false,
  generatedExpressions: false,
  routineUses: false,
  rowPolicies: false,
  lenientViews: true,
  volatileDefaultsRewrite: false,
  refusesNotNullWithoutDefault: false,
  dropsReferencingKeysWithColumn: false,
  typeChangeCasts: false,
  defaultsFollowTypeChanges: false,
  describeType: describeMysqlType,
  // A VARCHAR lengthens in place while its length bytes stay the same; TEXT types are a copy.
  widensInPlace: {
    text: (from, to) => /^varchar/.test(from) && /^varchar/.test(to),
    numeric: false,
    unboundedNumeric: false,
    timePrecision: false,
  },
  backups: { prefix: '_dbops_bak_', displayName: (name) => name },
  rewriteWords: {
    rewrite: 'The table is copied while writes wait.',
    waiting: 'writes wait',
    alternative: ', or use an online schema change tool (gh-ost, pt-online-schema-change)',
  },
};

const TRAITS: { readonly [D in DialectName]: EngineTraits } = { postgresql: POSTGRESQL, mysql: MYSQL };

/** The traits of the engine a model (or a dialect) of this name is read from. */
export function traitsOf(dialect: DialectName): EngineTraits {
  return TRAITS[dialect];
}
