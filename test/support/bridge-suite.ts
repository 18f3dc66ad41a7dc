// The world of a bridge suite: an app whose runs are worked for real, with one organization and one
// project; throw-away databases on the test servers, each registered as a connection of the project
// under a name; and the bridge route. `bridgeSuite` registers its own beforeAll and afterAll, so a
// suite says only which databases it needs and what it checks.
import { afterAll, beforeAll, expect } from 'vitest';
import type { Client, Response, TestApp } from './app.ts';
import { connectionBody } from './connections.ts';
import type { TargetEngine } from './engines.ts';
import { waitForRun } from './operations.ts';
import { closeSuite, createWorkerProject } from './worker-runs.ts';

const API = '/api/v1';

export interface BridgeSuite {
  /** The app and its owner's project: set once the suite's beforeAll has run. */
  t: TestApp;
  owner: Client;
  orgId: string;
  projectId: string;
  /** The databases' URLs and connection ids, by the name each was registered under. */
  urls: Record<string, string>;
  ids: Record<string, string>;
  /**
   * A new database on `engine`, filled by a script (none when empty) or by `fill`, registered as
   * connection `name` of the project.
   */
  database(
    name: string,
    engine: TargetEngine,
    content: string | ((url: string) => Promise<void>),
    environment?: string,
  ): Promise<void>;
  /** Asks for a bridge run, as the owner unless `client` is given. */
  bridge(body: Record<string, unknown>, client?: Client): Promise<Response>;
  /** Waits for a run's end; an internal error is only in the log, so it is printed with the run. */
  finished(runId: string): Promise<Response['body']>;
  /** Starts a copy that must be accepted (else fails saying why) and waits for its end. */
  copied(body: Record<string, unknown>): Promise<Response['body']>;
}

export function bridgeSuite(
  names: { org: string; project: string },
  setUp: (suite: BridgeSuite) => Promise<void>,
  timeoutMs?: number,
): BridgeSuite {
  const databases: { drop(): Promise<void> }[] = [];
  const suite: BridgeSuite = {
    urls: {},
    ids: {},
    async database(name, engine, content, environment = 'development') {
      const created = await engine.create();
      databases.push(created);
      if (typeof content === 'function') await content(created.url);
      else if (content !== '') await engine.load(created.url, content);
      suite.urls[name] = created.url;
      const connection = await suite.owner.post(
        `${API}/connections`,
        connectionBody(suite.projectId, created.url, { name, environment }),
      );
      expect(connection.status, JSON.stringify(connection.body)).toBe(201);
      suite.ids[name] = connection.body.id;
    },
    bridge: (body, client = suite.owner) =>
      client.post(`${API}/projects/${suite.projectId}/bridge/run`, body),
    async finished(runId) {
      const run = await waitForRun(suite.owner, runId, ['succeeded', 'failed', 'cancelled']);
      if (String(run.error).startsWith('Internal error'))
        console.error(suite.t.logs.filter((line) => line.includes(runId)).join('\n'));
      return run;
    },
    async copied(body) {
      const answer = await suite.bridge(body);
      expect(answer.status, JSON.stringify(answer.body)).toBe(202);
      return suite.finished(answer.body.id);
    },
  } as BridgeSuite;
  beforeAll(async () => {
    Object.assign(suite, await createWorkerProject(names));
    await setUp(suite);
  }, timeoutMs);
  afterAll(() => closeSuite(suite.t, databases));
  return suite;
}
