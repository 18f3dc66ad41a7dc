// Process entry: `serve` (default), `worker`, `migrate`, `openapi`, and the modules' operator commands
// (`create-admin`, `set-plan`, …). Every process is built by the composition root (src/compose.ts).
// Configuration errors and a busy embedded store end the process with one clear line.

import type { AddressInfo } from 'node:net';
import { createInterface } from 'node:readline/promises';
import { Writable } from 'node:stream';
import { buildApp } from './app.ts';
import {
  askRunningService,
  type CommandAnswer,
  type CommandDescription,
  listRunningCommands,
  runCommand,
  serveControlSocket,
} from './cli/control-socket.ts';
import { type AppLogger, type Composition, compose } from './compose.ts';
import { type Config, ConfigError, loadConfig } from './config.ts';
import { AppError } from './core/errors.ts';
import { RedisUnavailableError } from './http/rate-limit-store.ts';
import { RUNS_AT_ONCE } from './jobs/index.ts';
import type { Command } from './modules/module.ts';
import { bootstrapAdmin } from './modules/orgs/first-admin.ts';
import type { DrainReport } from './modules/runs/runs.executor.ts';
import { type MetricsServer, serveMetrics } from './observability/metrics-server.ts';
import { flushTraces, tracingEndpoint } from './observability/trace-export.ts';
import { DataDirBusyError } from './store/data-dir-lock.ts';
import { openStore, storeLocation } from './store/db.ts';
import { migrateToLatest } from './store/migrate.ts';
import { VERSION } from './version.ts';
import { ensureWebBuild } from './web/web-build.ts';

/**
 * After SHUTDOWN_GRACE_S, how long runs still working get to reach a checkpoint and hand themselves
 * back (a seed's checkpoint comes every second or so, then its transaction rolls back).
 */
const HAND_BACK_MS = 10_000;
/**
 * Beyond the grace and the hand-back, what closing takes at most (the queue's other jobs, the pools,
 * the store); a stop that hangs longer (a stuck pool, a hung target) ends the process anyway.
 */
const CLOSE_MS = 12_000;

class UsageError extends Error {}

/** `migrate` asked of a running service: it migrated the store before it began to serve. */
const MIGRATED_AT_START: Command = {
  name: 'migrate',
  usage: 'migrate',
  run: async () => 'The store is up to date: the running service migrated it when it started',
};

async function main(argv: string[]): Promise<void> {
  const [command = 'serve', ...rest] = argv;
  const config = loadConfig();
  switch (command) {
    case 'serve':
      return serve(config);
    case 'worker':
      return worker(config);
    case 'migrate':
      return migrate(config);
    case 'openapi':
      return printOpenApi(config);
    case 'help':
    case '--help':
      return operatorCommand(config, 'help', []);
    default:
      return operatorCommand(config, command, rest);
  }
}

async function serve(config: Config): Promise<void> {
  // Before the store opens: a failed build ends the start with its own message, nothing to close.
  await ensureWebBuild({ log: (message) => process.stdout.write(`${message}\n`) });
  const composition = await compose({ config, jobs: config.jobsInServer ? 'work' : 'send' });
  const { logger } = composition;
  const app = await buildApp(composition);
  await bootstrapAdmin(composition.db, composition.orgs, config.admin, logger);
  // With the embedded store, this process is the only one that may open it: the CLI asks here.
  const closeSocket = config.databaseUrl
    ? undefined
    : await serveControlSocket(
        config.dataDir,
        [...commandsOf(composition.modules), MIGRATED_AT_START],
        logger,
      );
  const metrics = await metricsOf(config, composition);
  onShutdown(config, logger, async () => {
    await closeSocket?.();
    // No new connection from here; the requests in flight are answered (new ones on kept-alive
    // connections get 503) while the runs drain beside them.
    const requestsAnswered = app.close();
    const drained = await composition.drain(config.shutdownGraceSeconds * 1000, HAND_BACK_MS);
    await requestsAnswered;
    await metrics?.close();
    await composition.close();
    return drained;
  });
  // Fastify names every address it listens on; the start line below names the one URL instead.
  const level = app.log.level;
  app.log.level = 'warn';
  try {
    await app.listen({ port: config.port, host: config.host });
  } finally {
    app.log.level = level;
  }
  const { port } = app.server.address() as AddressInfo;
  const host = config.host.includes(':') ? `[${config.host}]` : config.host;
  const url = `http://${host}:${port}`;
  logger.info(
    {
      url,
      store: config.databaseUrl ? 'postgresql' : 'embedded',
      version: VERSION,
      workers: config.jobsInServer ? RUNS_AT_ONCE : 0,
      ...(metrics && { metrics: `${metrics.url}/metrics` }),
      ...(tracingEndpoint() && { traces: tracingEndpoint() }),
    },
    `dbops ${VERSION} serving at ${url}`,
  );
}

async function worker(config: Config): Promise<void> {
  if (!config.databaseUrl) {
    throw new ConfigError(
      'DATABASE_URL is required by `worker`: the embedded store belongs to the `serve` process, which works the jobs itself',
    );
  }
  const composition = await compose({ config, jobs: 'work' });
  const metrics = await metricsOf(config, composition);
  composition.logger.info(
    {
      version: VERSION,
      workers: RUNS_AT_ONCE,
      ...(metrics && { metrics: `${metrics.url}/metrics` }),
      ...(tracingEndpoint() && { traces: tracingEndpoint() }),
    },
    `dbops ${VERSION} worker started`,
  );
  onShutdown(config, composition.logger, async () => {
    const drained = await composition.drain(config.shutdownGraceSeconds * 1000, HAND_BACK_MS);
    await metrics?.close();
    await composition.close();
    return drained;
  });
}

/** The metrics listener, when METRICS_PORT is set (on HOST, like the API). */
function metricsOf(config: Config, composition: Composition): Promise<MetricsServer> | undefined {
  if (config.metricsPort === undefined) return undefined;
  return serveMetrics({
    port: config.metricsPort,
    host: config.host,
    store: composition.store,
    logger: composition.logger,
  });
}

async function migrate(config: Config): Promise<void> {
  const answer = config.databaseUrl ? undefined : await askRunningService(config.dataDir, 'migrate', []);
  if (answer) return console.log(answer.output);
  const store = await openStore(storeLocation(config));
  try {
    const applied = await migrateToLatest(store.db);
    console.log(applied.length ? `Applied ${applied.join(', ')}` : 'The store is up to date');
  } finally {
    await store.close();
  }
}

/** The real app on an empty in-memory store: the description needs the routes, not the data. */
async function printOpenApi(config: Config): Promise<void> {
  const composition = await compose({
    config: { ...config, logLevel: 'silent', redisUrl: undefined },
    jobs: 'none',
    store: await openStore({ kind: 'pglite-memory' }),
    migrate: false,
    secretKey: Buffer.alloc(32),
  });
  try {
    const app = await buildApp(composition);
    await app.ready();
    process.stdout.write(`${JSON.stringify(app.swagger(), null, 2)}\n`);
    await app.close();
  } finally {
    await composition.close();
    await composition.store.close();
  }
}

/**
 * A module's command: asked of the running service when one holds the embedded store (its socket
 * answers), otherwise run here on the store directly.
 */
async function operatorCommand(config: Config, name: string, args: string[]): Promise<void> {
  const running = config.databaseUrl ? undefined : await listRunningCommands(config.dataDir);
  let answer: CommandAnswer | undefined;
  if (running) {
    if (name === 'help') return console.log(usage(running));
    const command = running.find((c) => c.name === name);
    if (!command) throw new UsageError(`Unknown command "${name}"\n${usage(running)}`);
    answer = await askRunningService(config.dataDir, name, await withSecret(config, command, args));
  }
  if (!answer) {
    const direct = await compose({ config: { ...config, logLevel: 'warn' }, jobs: 'none' });
    try {
      const commands = commandsOf(direct.modules);
      if (name === 'help') return console.log(usage(commands));
      const command = commands.find((c) => c.name === name);
      if (!command) throw new UsageError(`Unknown command "${name}"\n${usage(commands)}`);
      answer = await runCommand(commands, name, await withSecret(config, command, args));
    } finally {
      await direct.close();
    }
  }
  if (!answer.ok) throw new UsageError(answer.output);
  console.log(answer.output);
}

/** The command's secret option from the configuration (environment) or a terminal prompt, if absent. */
async function withSecret(config: Config, command: CommandDescription, args: string[]): Promise<string[]> {
  const secret = command.secret;
  if (!secret || args.some((arg) => arg === `--${secret.option}` || arg.startsWith(`--${secret.option}=`)))
    return args;
  const value = config[secret.config] ?? (await promptHidden(secret.prompt));
  return value === undefined ? args : [...args, `--${secret.option}`, value];
}

/** Reads a line from the terminal without echoing it; undefined when stdin is not a terminal. */
async function promptHidden(question: string): Promise<string | undefined> {
  if (!process.stdin.isTTY) return undefined;
  process.stdout.write(question);
  const muted = new Writable({ write: (_chunk, _encoding, done) => done() });
  const reader = createInterface({ input: process.stdin, output: muted, terminal: true });
  try {
    return await reader.question('');
  } finally {
    reader.close();
    process.stdout.write('\n');
  }
}

function commandsOf(modules: readonly { commands?: Command[] }[]): Command[] {
  return modules.flatMap((module) => module.commands ?? []);
}

function usage(commands: readonly CommandDescription[]): string {
  return [
    'Usage: npm run cli -- <command>',
    '  serve        start the API (and the job worker, unless JOBS_IN_SERVER=false)',
    '  worker       work the job queue only (needs DATABASE_URL)',
    '  migrate      apply the store migrations',
    '  openapi      print the OpenAPI description',
    ...commands.filter((c) => c.name !== 'migrate').map((command) => `  ${command.usage}`),
    'Commands work while the service runs: with the embedded store they are answered by it.',
  ].join('\n');
}

/**
 * SIGTERM and SIGINT stop the process gracefully: no new requests or runs, those in flight finish
 * (runs within SHUTDOWN_GRACE_S, then handed back at a checkpoint), pools and the store close. A
 * stop that hangs past the grace, the hand-back and the closing, or a second signal, ends it at once.
 */
function onShutdown(config: Config, logger: AppLogger, stop: () => Promise<DrainReport>): void {
  let stopping = false;
  const graceMs = config.shutdownGraceSeconds * 1000;
  const handler = (signal: NodeJS.Signals) => {
    if (stopping) process.exit(1);
    stopping = true;
    const started = Date.now();
    logger.info(
      { signal, grace_s: config.shutdownGraceSeconds },
      `shutting down (${signal}): no new requests or runs; running ones get ${config.shutdownGraceSeconds} s`,
    );
    const limitMs = graceMs + HAND_BACK_MS + CLOSE_MS;
    setTimeout(() => {
      logger.error({ signal }, `shutdown took longer than ${limitMs} ms: exiting`);
      process.exit(1);
    }, limitMs).unref();
    stop().then(
      (drained) => {
        const ms = Date.now() - started;
        logger.info(
          {
            ms,
            runs_finished: drained.finished,
            runs_handed_back: drained.handedBack,
            runs_abandoned: drained.abandoned,
          },
          `stopped after ${ms} ms: ${drained.finished} run(s) finished, ${drained.handedBack.length} handed back` +
            (drained.abandoned.length > 0
              ? `, ${drained.abandoned.length} left to the next start's sweep`
              : ''),
        );
        logger.flush?.();
        flushTraces().finally(() => process.exit(0));
      },
      (error: unknown) => {
        logger.error({ err: error }, 'shutdown failed');
        process.exit(1);
      },
    );
  };
  process.on('SIGINT', handler);
  process.on('SIGTERM', handler);
}

main(process.argv.slice(2)).catch((error: unknown) => {
  if (error instanceof ConfigError) console.error(`Invalid configuration: ${error.message}`);
  else if (
    error instanceof DataDirBusyError ||
    error instanceof UsageError ||
    error instanceof RedisUnavailableError
  )
    console.error(error.message);
  else if (error instanceof AppError) console.error(error.text);
  else console.error(error);
  process.exit(1);
});
