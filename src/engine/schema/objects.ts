// The schema objects beyond tables that the engine manages: named schemas, views and materialized
// views, functions and procedures, triggers and extensions. Definitions are kept as the server
// prints them (pg_get_viewdef, pg_get_functiondef, pg_get_triggerdef, SHOW CREATE on MySQL), with
// every name qualified, so two databases holding the same object print the same text, and the text
// is the DDL that recreates it.
//
// These fields are optional on SchemaModel: snapshots taken by an older model version lack them,
// and such a model reads as one without these objects (`schemaObjects`). `depends_on` lists come
// from the catalog (pg_depend through pg_rewrite for views, tgfoid for triggers): they order plans
// and are recorded, never compared.
import type { IndexModel } from './index-model.ts';

/** PostgreSQL schema (namespace). */
export interface NamespaceModel {
  name: string;
  comment: string | null;
}

export type RelationKind = 'table' | 'view' | 'materialized_view';

/** What an object reads: a relation (a column of it when `column` is set), a routine or a type. */
export interface DependencyRef {
  kind: RelationKind | 'routine' | 'type';
  schema: string | null;
  /** Routines carry their identity arguments, as RoutineModel.name does. */
  name: string;
  column: string | null;
}

export interface ViewColumn {
  name: string;
  type: string;
}

export interface ViewModel {
  /** PostgreSQL schema; null on MySQL. */
  schema: string | null;
  name: string;
  materialized: boolean;
  /** The SELECT as the server prints it (pg_get_viewdef; MySQL VIEW_DEFINITION). */
  definition: string;
  /** Output columns in order: whether CREATE OR REPLACE can keep the view or it must be recreated. */
  columns: ViewColumn[];
  /** PostgreSQL reloptions (`security_barrier=true`, `check_option=local`); MySQL: CHECK OPTION, SECURITY. */
  options: string[];
  /** Indexes of a materialized view. */
  indexes: IndexModel[];
  comment: string | null;
  /** Recorded, not compared. */
  depends_on: DependencyRef[];
}

export type RoutineKind = 'function' | 'procedure';

export interface RoutineModel {
  schema: string | null;
  /** `name(identity argument types)` on PostgreSQL (overloads differ by it); the name on MySQL. */
  name: string;
  kind: RoutineKind;
  /** The argument list with names and defaults (pg_get_function_arguments). */
  arguments: string;
  /** The result type (pg_get_function_result); null for procedures. */
  result: string | null;
  /** The complete CREATE statement as the server prints it. */
  definition: string;
  comment: string | null;
  depends_on: DependencyRef[];
}

/** `O` fires (origin), `D` disabled, `R` replica only, `A` always (pg_trigger.tgenabled). */
export type TriggerState = 'O' | 'D' | 'R' | 'A';

export interface TriggerModel {
  schema: string | null;
  table: string;
  name: string;
  /** CREATE TRIGGER as the server prints it. */
  definition: string;
  state: TriggerState;
  comment: string | null;
  depends_on: DependencyRef[];
}

/** A domain (a base type with a default, NOT NULL and checks) or a composite type. */
export interface UserTypeModel {
  schema: string;
  name: string;
  kind: 'domain' | 'composite';
  /** Domain: its base type as format_type prints it. */
  base: string | null;
  /** Domain: its default expression, its collation where it differs from the base type's. */
  default: string | null;
  collation: string | null;
  not_null: boolean;
  /** Domain: its CHECK constraints as pg_get_constraintdef prints them. */
  checks: { name: string; definition: string }[];
  /** Composite: its attributes in order. */
  attributes: { name: string; type: string }[];
  comment: string | null;
}

/** A collation created in a user schema (PostgreSQL). */
export interface CollationModel {
  schema: string;
  name: string;
  /** `libc` or `icu`. */
  provider: string;
  /** icu: the locale; libc: LC_COLLATE and LC_CTYPE. */
  locale: string | null;
  lc_collate: string | null;
  lc_ctype: string | null;
  deterministic: boolean;
}

export interface ExtensionModel {
  name: string;
  /** The schema its objects live in. */
  schema: string;
  version: string;
}

/** The managed objects of a model, each list present (empty when the model predates them). */
export interface SchemaObjects {
  schemas: NamespaceModel[];
  views: ViewModel[];
  routines: RoutineModel[];
  triggers: TriggerModel[];
  extensions: ExtensionModel[];
  types: UserTypeModel[];
  collations: CollationModel[];
}

/** The optional fields SchemaModel carries for them. */
export type SchemaObjectFields = Partial<SchemaObjects>;

export function schemaObjects(model: SchemaObjectFields): SchemaObjects {
  return {
    schemas: model.schemas ?? [],
    views: model.views ?? [],
    routines: model.routines ?? [],
    triggers: model.triggers ?? [],
    extensions: model.extensions ?? [],
    types: model.types ?? [],
    collations: model.collations ?? [],
  };
}

/** `schema.name`, or `name` where there are no schemas: how objects are keyed and named. */
export function objectKey(item: { schema: string | null; name: string }): string {
  return item.schema === null ? item.name : `${item.schema}.${item.name}`;
}

/** A trigger is named within its table. */
export function triggerKey(trigger: TriggerModel): string {
  return `${objectKey({ schema: trigger.schema, name: trigger.table })}.${trigger.name}`;
}

/** The key of what a dependency points at (a column's relation, for the relation's key). */
export function dependencyKey(ref: DependencyRef): string {
  const kind =
    ref.kind === 'table' || ref.kind === 'view' || ref.kind === 'materialized_view' ? 'rel' : ref.kind;
  return `${kind}:${objectKey(ref)}`;
}
