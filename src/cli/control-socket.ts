// Operator commands reach a running service through a Unix socket in DATA_DIR, because the embedded
// store belongs to one process: `npm run cli -- set-plan …` while `npm start` runs is answered by the
// server itself, in its own store transactions (not through PGlite's socket server, whose single
// connection would let a CLI transaction capture the server's queries). The socket lives in a
// directory only the service's user may enter (0700), so only that user (and root) can ask.
// The protocol is plain HTTP over the socket: GET /commands lists them (name, usage, secret option),
// POST /commands/<name> with `{args}` runs one.
import { mkdirSync, rmSync } from 'node:fs';
import { createServer, request } from 'node:http';
import { join } from 'node:path';
import { AppError } from '../core/errors.ts';
import type { Command, Logger } from '../modules/module.ts';

/** The socket of the service that holds the store in `dataDir`. */
export function controlSocketPath(dataDir: string): string {
  return join(dataDir, 'run', 'control.sock');
}

/** A command's answer: what to print, and whether it succeeded. */
export interface CommandAnswer {
  ok: boolean;
  output: string;
}

export async function runCommand(
  commands: readonly Command[],
  name: string,
  args: string[],
): Promise<CommandAnswer> {
  const command = commands.find((c) => c.name === name);
  if (!command) return { ok: false, output: `Unknown command "${name}"` };
  try {
    return { ok: true, output: await command.run(args) };
  } catch (error) {
    if (error instanceof AppError) return { ok: false, output: error.text };
    if (error instanceof TypeError && 'code' in error && String(error.code).startsWith('ERR_PARSE_ARGS'))
      return { ok: false, output: error.message };
    throw error;
  }
}

/** Answers commands on the socket until the returned function closes it. */
export async function serveControlSocket(
  dataDir: string,
  commands: readonly Command[],
  logger: Logger,
): Promise<() => Promise<void>> {
  const path = controlSocketPath(dataDir);
  mkdirSync(join(dataDir, 'run'), { recursive: true, mode: 0o700 });
  // A socket left by a process that died: the data-dir lock says no other process holds the store.
  rmSync(path, { force: true });
  const descriptions = commands.map(({ name, usage, secret }) => ({ name, usage, secret }));
  const server = createServer((req, res) => {
    if (req.method === 'GET' && req.url === '/commands') {
      res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(descriptions));
      return;
    }
    const name = /^\/commands\/([\w-]+)$/.exec(req.url ?? '')?.[1];
    if (req.method !== 'POST' || !name) {
      res.writeHead(404).end();
      return;
    }
    let body = '';
    req.setEncoding('utf8');
    req.on('data', (chunk: string) => {
      body += chunk;
    });
    req.on('end', () => {
      const args = (JSON.parse(body || '{}') as { args?: unknown }).args;
      const list = Array.isArray(args) ? args.map(String) : [];
      runCommand(commands, name, list).then(
        (answer) => {
          res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(answer));
        },
        (error: unknown) => {
          logger.error({ err: error, command: name }, 'operator command failed');
          res
            .writeHead(200, { 'content-type': 'application/json' })
            .end(JSON.stringify({ ok: false, output: 'Internal error (see the service log)' }));
        },
      );
    });
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(path, resolve);
  });
  return () =>
    new Promise<void>((resolve) => {
      server.close(() => resolve());
      server.closeAllConnections();
    });
}

/** A command as the running service describes it: what the CLI needs before asking. */
export type CommandDescription = Pick<Command, 'name' | 'usage' | 'secret'>;

/** The running service's commands; undefined when no service answers on the socket. */
export async function listRunningCommands(dataDir: string): Promise<CommandDescription[] | undefined> {
  return (await exchange(dataDir, 'GET', '/commands')) as CommandDescription[] | undefined;
}

/** Asks the service holding the store to run a command; undefined when no service answers. */
export async function askRunningService(
  dataDir: string,
  name: string,
  args: string[],
): Promise<CommandAnswer | undefined> {
  return (await exchange(dataDir, 'POST', `/commands/${name}`, { args })) as CommandAnswer | undefined;
}

/**
 * One request on the socket; undefined when no service answers on it (none runs, or one died and
 * left it), so the caller works on the store itself.
 */
function exchange(dataDir: string, method: string, path: string, body?: object): Promise<unknown> {
  return new Promise((resolve, reject) => {
    const req = request({ socketPath: controlSocketPath(dataDir), method, path }, (res) => {
      let text = '';
      res.setEncoding('utf8');
      res.on('data', (chunk: string) => {
        text += chunk;
      });
      res.on('end', () => resolve(JSON.parse(text)));
    });
    req.on('error', (error: NodeJS.ErrnoException) => {
      if (error.code === 'ENOENT' || error.code === 'ECONNREFUSED') resolve(undefined);
      else reject(error);
    });
    if (body) req.setHeader('content-type', 'application/json');
    req.end(body ? JSON.stringify(body) : undefined);
  });
}
