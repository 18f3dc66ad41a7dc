// Short names for the contract's schemas (generated into schema.d.ts from /openapi.json).
import type { components } from './schema';

type Schemas = components['schemas'];
export type User = Schemas['User'];
export type Project = Schemas['Project'];
export type Connection = Schemas['Connection'];
export type ConnectionTestResult = Schemas['ConnectionTestResult'];
export type SchemaModel = Schemas['SchemaModel'];
export type Migration = Schemas['Migration'];
export type MigrationStatement = Schemas['MigrationStatement'];
export type LintWarning = Schemas['LintWarning'];
export type Patch = Schemas['Patch'];
export type PatchDryRun = Schemas['PatchDryRun'];
export type Approval = Schemas['Approval'];
export type Run = Schemas['Run'];
export type DriftOverview = Schemas['DriftOverview'];
export type DriftReport = Schemas['DriftReport'];
export type DriftCheck = Schemas['DriftCheck'];
export type ApiKey = Schemas['ApiKey'];
export type CreatedApiKey = Schemas['CreatedApiKey'];
export type Session = Schemas['Session'];
export type Organization = Schemas['Organization'];
export type Scope = CreatedApiKey['scopes'][number];
