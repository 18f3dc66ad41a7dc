// The server under test: the real app (buildApp) on a migrated store, with one organization, its
// owner, PROJECTS projects and a read-scoped API key, plus two comparison routes of the bench's own,
// listening on 127.0.0.1 at a random port.
import { randomBytes } from 'node:crypto';
import type { AddressInfo } from 'node:net';
import {
  AliasNode,
  type CompiledQuery,
  DeleteQueryNode,
  InsertQueryNode,
  type KyselyPlugin,
  type OperationNode,
  type PluginTransformQueryArgs,
  type PluginTransformResultArgs,
  type QueryResult,
  type RootOperationNode,
  SelectQueryNode,
  TableNode,
  type UnknownRow,
  UpdateQueryNode,
} from 'kysely';
import { buildApp } from '../src/app.ts';
import { compose } from '../src/compose.ts';
import { loadConfig } from '../src/config.ts';
import type { App } from '../src/http/types.ts';
import { billingModule } from '../src/modules/billing/billing.module.ts';
import { updateOrgPlan } from '../src/modules/billing/billing.repo.ts';
import { MODULES } from '../src/modules/index.ts';
import { createAdmin } from '../src/modules/orgs/first-admin.ts';
import { projectsPageQuery, visibleProjectsQuery } from '../src/modules/projects/projects.repo.ts';
import { createPasswordHasher } from '../src/security/passwords.ts';
import type { Store } from '../src/store/db.ts';
import { migrateToLatest } from '../src/store/migrate.ts';

export const PROJECTS = 20;
export const QUERY_SAMPLE = 100;
export const HELLO_PATH = '/bench/hello';
export const STATIC_PATH = '/bench/static';
export const QUERIES_PATH = '/bench/queries';
export const API_PATH = '/api/v1/projects';

/** Cheap Argon2 (as in the tests): only the set-up signs in, and it is not what is measured. */
const CHEAP_ARGON2 = { memoryKib: 64, iterations: 1 };
const PASSWORD = 'bench password 123';

export interface Server {
  app: App;
  baseUrl: string;
  /** `Authorization` header value of the API key. */
  bearer: string;
  /**
   * Store queries per API request, by statement, over the first QUERY_SAMPLE calls of the key (so the
   * first use's `last_used_at` write is among them).
   */
  queriesPerRequest: Map<string, number>;
  /** Response bodies in bytes. */
  sizes: { hello: number; api: number };
}

/**
 * Counts the store queries the app issues, by statement and table, while `enabled`. It is a Kysely
 * plugin on the app's `db`: when disabled it costs one branch per query, nothing next to the query.
 */
export class QueryCounter implements KyselyPlugin {
  enabled = false;
  readonly counts = new Map<string, number>();

  transformQuery(args: PluginTransformQueryArgs): RootOperationNode {
    if (this.enabled) {
      const label = describe(args.node);
      this.counts.set(label, (this.counts.get(label) ?? 0) + 1);
    }
    return args.node;
  }

  async transformResult(args: PluginTransformResultArgs): Promise<QueryResult<UnknownRow>> {
    return args.result;
  }

  reset(): void {
    this.counts.clear();
  }
}

function tableName(node: OperationNode | undefined): string {
  if (node && AliasNode.is(node)) return tableName(node.node);
  if (node && TableNode.is(node)) return node.table.identifier.name;
  return '?';
}

/** The first query with a FROM inside `node` (a select without one reads through its subqueries). */
function innerQuery(node: object): SelectQueryNode | undefined {
  for (const value of Object.values(node)) {
    if (typeof value !== 'object' || value === null) continue;
    if (SelectQueryNode.is(value as OperationNode) && (value as SelectQueryNode).from)
      return value as SelectQueryNode;
    const found = innerQuery(value);
    if (found) return found;
  }
  return undefined;
}

function describe(node: RootOperationNode): string {
  if (SelectQueryNode.is(node) && !node.from) {
    const inner = innerQuery(node);
    return inner ? `select (${describe(inner)})` : 'select';
  }
  if (SelectQueryNode.is(node)) {
    const tables = [...(node.from?.froms ?? []), ...(node.joins ?? []).map((join) => join.table)].map(
      tableName,
    );
    return `select ${tables.join(' ⋈ ')}`;
  }
  if (UpdateQueryNode.is(node)) return `update ${tableName(node.table)}`;
  if (InsertQueryNode.is(node)) return `insert ${tableName(node.into)}`;
  if (DeleteQueryNode.is(node)) return `delete ${tableName(node.from.froms[0])}`;
  return node.kind;
}

/**
 * The service on `store`, with every module, or without the billing module's usage metering (the
 * one thing it adds to every request), for the metering bench.
 */
export async function startServer(store: Store, options: { metering?: boolean } = {}): Promise<Server> {
  await migrateToLatest(store.db);
  const queries = new QueryCounter();
  const db = store.db.withPlugin(queries);
  const passwords = await createPasswordHasher(CHEAP_ARGON2);
  const composition = await compose({
    config: { ...loadConfig({}), logLevel: 'silent', cookieSecure: false, signupOpen: false },
    // The bench starts no run.
    jobs: 'none',
    store: { ...store, db },
    migrate: false,
    secretKey: randomBytes(32),
    passwords,
    modules: options.metering === false ? MODULES.filter((factory) => factory !== billingModule) : MODULES,
  });
  const app = await buildApp(composition);
  app.addHook('onClose', () => composition.close());
  // The comparison routes, on the same instance (so behind the same global hooks: request id, helmet,
  // CORS) but outside /api/v1: no authentication, no store, no schema. In the bench only.
  // The bare route answers 17 bytes; the static one the API's own answer (about 4.5 KB), prepared
  // once, so that the cost of moving the bytes is told apart from the cost of making them.
  app.get(HELLO_PATH, async () => ({ hello: 'world' }));
  let staticBody = '';
  app.get(STATIC_PATH, async (_request, reply) =>
    reply.type('application/json; charset=utf-8').send(staticBody),
  );
  // The same store queries as the API route makes for a warm key, compiled once and run through the
  // same driver, their rows sent with JSON.stringify: what the request costs without the framework.
  let storeQueries: CompiledQuery[] = [];
  app.get(QUERIES_PATH, async (_request, reply) => {
    let rows: unknown[] = [];
    for (const query of storeQueries) rows = (await db.executeQuery(query)).rows;
    return reply.type('application/json; charset=utf-8').send(JSON.stringify({ items: rows }));
  });
  await app.ready();

  const email = 'owner@bench.example';
  const { org, owner } = await createAdmin(composition.orgs, {
    email,
    password: PASSWORD,
    orgName: 'Bench org',
  });
  // An Enterprise organization with limits no bench reaches: the limiter runs on every request, as in
  // production, without refusing the load.
  await updateOrgPlan(
    db,
    org.id,
    { plan: 'enterprise', rate_limit_per_minute: 1_000_000_000, rate_limit_per_hour: 1_000_000_000 },
    new Date(),
  );
  const bearer = await seed(app, email);
  const sample = await sampleApi(app, bearer, queries);
  staticBody = sample.body;
  // The one statement the API route runs for a warm key: its page, with the credential epoch on
  // PostgreSQL (the embedded store learns of changes without a query).
  storeQueries = [
    projectsPageQuery(
      db,
      visibleProjectsQuery(db, org.id, owner.id, true, store.plansCached),
      { limit: 50, offset: 0 },
      !store.pglite,
    ).compile(),
  ];

  await app.listen({ host: '127.0.0.1', port: 0 });
  const { port } = app.server.address() as AddressInfo;
  const sizes = { hello: JSON.stringify({ hello: 'world' }).length, api: Buffer.byteLength(staticBody) };
  return {
    app,
    baseUrl: `http://127.0.0.1:${port}`,
    bearer,
    queriesPerRequest: sample.queriesPerRequest,
    sizes,
  };
}

/** Signs the owner in, creates the projects and a read-scoped API key through the API itself. */
async function seed(app: App, email: string): Promise<string> {
  const login = await app.inject({
    method: 'POST',
    url: '/api/v1/auth/login',
    payload: { email, password: PASSWORD },
  });
  if (login.statusCode !== 200) throw new Error(`login: ${login.statusCode} ${login.body}`);
  const cookies = Object.fromEntries(login.cookies.map((c) => [c.name, c.value]));
  const csrf = cookies.csrf_token;
  if (!csrf) throw new Error('login: no csrf_token cookie');
  const post = async (url: string, payload: object) => {
    const response = await app.inject({
      method: 'POST',
      url,
      payload,
      cookies,
      headers: { 'x-csrf-token': csrf },
    });
    if (response.statusCode !== 201) throw new Error(`POST ${url}: ${response.statusCode} ${response.body}`);
    return JSON.parse(response.body) as Record<string, unknown>;
  };
  for (let i = 1; i <= PROJECTS; i++) {
    await post('/api/v1/projects', { name: `Project ${i}`, description: `Benchmark project number ${i}` });
  }
  const key = await post('/api/v1/api-keys', { name: 'bench', scopes: ['read'] });
  return `Bearer ${String(key.secret)}`;
}

/**
 * Calls the API route QUERY_SAMPLE times through inject with the query counter on; checks every
 * answer (200, every project listed) and returns the queries per request and the answer's body.
 */
async function sampleApi(app: App, bearer: string, queries: QueryCounter) {
  let body = '';
  queries.reset();
  queries.enabled = true;
  try {
    for (let i = 0; i < QUERY_SAMPLE; i++) {
      const response = await app.inject({ method: 'GET', url: API_PATH, headers: { authorization: bearer } });
      if (response.statusCode !== 200)
        throw new Error(`GET ${API_PATH}: ${response.statusCode} ${response.body}`);
      const page = JSON.parse(response.body) as { items: unknown[]; total: number };
      if (page.total !== PROJECTS || page.items.length !== PROJECTS) {
        throw new Error(
          `GET ${API_PATH}: expected ${PROJECTS} projects, got ${page.items.length} of ${page.total}`,
        );
      }
      body = response.body;
    }
  } finally {
    queries.enabled = false;
  }
  const queriesPerRequest = new Map([...queries.counts].map(([label, n]) => [label, n / QUERY_SAMPLE]));
  return { body, queriesPerRequest };
}
