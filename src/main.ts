// Process entry: `serve` (default), `worker`, `migrate`, `openapi`, and the modules' operator commands
// (`create-admin`, `set-plan`, …). Every process is built by the composition root (src/compose.ts).
// Configuration errors and a busy embedded store end the process with one clear line.

// First: V8's settings apply to the heap from the start (see the file).
import './v8-flags.ts';
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
import { compose } from './compose.ts';
import { type Config, ConfigError, loadConfig } from './config.ts';
import { AppError } from './core/errors.ts';
import { RedisUnavailableError } from './http/rate-limit-store.ts';
import type { Command } from './modules/module.ts';
import { bootstrapAdmin } from './modules/orgs/first-admin.ts';
import { DataDirBusyError } from './store/data-dir-lock.ts';
import { openStore, storeLocation } from './store/db.ts';
import { migrateToLatest } from './store/migrate.ts';
import { ensureWebBuild } from './web/web-build.ts';

/** A stop that takes longer than this (a stuck pool, a hung target) ends the process anyway. */
const SHUTDOWN_TIMEOUT_MS = 25_000;

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
  const app = await buildApp(composition);
  await bootstrapAdmin(composition.db, composition.orgs, config.admin, composition.logger);
  // With the embedded store, this process is the only one that may open it: the CLI asks here.
  const closeSocket = config.databaseUrl
    ? undefined
    : await serveControlSocket(
        config.dataDir,
        [...commandsOf(composition.modules), MIGRATED_AT_START],
        composition.logger,
      );
  onShutdown(composition.logger, async () => {
    await closeSocket?.();
    await app.close();
    await composition.close();
  });
  await app.listen({ port: config.port, host: config.host });
}

async function worker(config: Config): Promise<void> {
  if (!config.databaseUrl) {
    throw new ConfigError(
      'DATABASE_URL is required by `worker`: the embedded store belongs to the `serve` process, which works the jobs itself',
    );
  }
  const composition = await compose({ config, jobs: 'work' });
  composition.logger.info({}, 'worker started');
  onShutdown(composition.logger, () => composition.close());
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
 * SIGTERM and SIGINT stop the process gracefully: no new requests or jobs, running ones finish or
 * are handed back, pools and the store close. A stop that hangs, or a second signal, ends it at once.
 */
function onShutdown(logger: { error(obj: object, msg: string): void }, stop: () => Promise<void>): void {
  let stopping = false;
  const handler = (signal: NodeJS.Signals) => {
    if (stopping) process.exit(1);
    stopping = true;
    setTimeout(() => {
      logger.error({ signal }, `shutdown took longer than ${SHUTDOWN_TIMEOUT_MS} ms: exiting`);
      process.exit(1);
    }, SHUTDOWN_TIMEOUT_MS).unref();
    stop().then(
      () => process.exit(0),
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
