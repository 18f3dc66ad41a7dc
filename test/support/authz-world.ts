// What the authorization matrix works with: its callers, the fixture resources a route can name
// (each id tagged with what it belongs to), and the world built by ./authz-fixtures.ts around them.
import type { OrgRole, ProjectRole, Scope } from '../../src/store/tables.ts';
import type { Client, TestApp } from './app.ts';

export interface Caller {
  name: string;
  client: Client;
  /** How it authenticates. */
  via: 'none' | 'session' | 'key';
  /** A key's scopes; null for a session (every scope) and for nobody. */
  scopes: Scope[] | null;
  /** Null when it holds no valid credential: nobody, a revoked key, a deactivated user's session. */
  orgRole: OrgRole | null;
  /** Its membership role in the fixture project (and in the fresh projects made for it). */
  projectRole: ProjectRole | null;
  /** A just-in-time grant limited to one connection: the role it gives there only. */
  connectionGrant?: { role: ProjectRole; connectionId: string };
  /** The owner of another organization: every fixture resource is foreign to it. */
  foreign: boolean;
  /** A session of the same user, to make resources of its own (its API keys). */
  self: Client | null;
}

/** What a fixture id is: a resource of the fixture organization, and of a project or not. */
export interface Tag {
  inProject: boolean;
  /** The connection the resource works on (a migration: its target), where a connection grant counts. */
  connection?: string;
  /** The connection its runs read from besides (a migration's source): a grant must cover it too. */
  reads?: string;
}

/** Resource kinds that a route's path parameter names; see `KIND_OF_SEGMENT` in authz-requests.ts. */
export type Kind =
  | 'project'
  | 'member'
  | 'outsider'
  | 'connection'
  /** A protected (production) connection, for the edit that turns protection off. */
  | 'protectedConnection'
  | 'snapshot'
  | 'drift'
  | 'run'
  | 'approval'
  | 'accessRequest'
  | 'migration'
  | 'patch'
  | 'seed'
  | 'anonymize'
  | 'webhook'
  | 'sink'
  | 'user'
  | 'deletedUser'
  | 'apiKey';

export interface World {
  t: TestApp;
  orgId: string;
  projectId: string;
  /** The target database's URL, for connection bodies. */
  targetUrl: string;
  /** The shared resource of each kind (apiKey: the owner's). */
  ids: Record<Kind, string>;
  /** The second connection of the project (the target of compare and bridge). */
  otherConnectionId: string;
  callers: Caller[];
  /** Tags of every fixture id; an id without one is random. */
  tags: Map<string, Tag>;
  /** Valid bodies of the resources made here, each with a new name. */
  bodies: {
    patch(connectionId: string): object;
    seed(): object;
    anonymize(): object;
    webhook(): object;
    sink(): object;
    saml(): object;
  };
  /** The holder of the pending access request (its viewer). */
  accessRequestHolder: string;
  /** A new resource of `kind` for `caller`, that nothing else uses. */
  fresh(kind: Kind, caller: Caller): Promise<string>;
  /** The resource of `kind` a caller names: its own API key, the shared one otherwise. */
  shared(kind: Kind, caller: Caller): string;
}
