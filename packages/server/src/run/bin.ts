#!/usr/bin/env -S node --max-semi-space-size=4
/**
 * The `gatehouse` program (npm's bin): `gatehouse serve` runs the server, `gatehouse migrate` and
 * `gatehouse admin …` work on its store, and every other command is the API client (cli/main.ts). Each part is
 * loaded only for its command: `gatehouse api` never loads the server, and `gatehouse serve` never loads the API
 * client (the server's early work starts before anything else loads, early-start.ts).
 *
 * Its shebang runs `node` with `NODE_FLAGS`, and it sets the embedded database's WebAssembly flags itself
 * (engine-flags.ts).
 *
 * @module
 */
import { readFile } from 'node:fs/promises';
import { homedir } from 'node:os';
import { isEntryPoint } from '../kernel/entry-point.js';
import { applyEngineFlags } from './engine-flags.js';
import { startServeEarly } from './early-start.js';
import { EXIT_FAILED } from '../cli/exit-status.js';

/** Whether this module is the program being run (not imported), also through npm's bin symlink. */
const isMain = (): boolean => isEntryPoint(import.meta.url);

/**
 * Ends the program with a command's exit status. The server's commands exit at once (`process.exit`: what they leave
 * open, such as the database's timers, must not hold the process); the API client and `doctor` set the status and
 * let the output drain. A rejection (not expected: each command reports its own failures) is one line and
 * {@link EXIT_FAILED}, not a stack trace.
 */
function finish(command: Promise<number>, how: 'exit' | 'drain'): void {
  const end = (status: number): void => {
    if (how === 'exit') process.exit(status);
    process.exitCode = status;
  };
  void command.then(end, (error: unknown) => {
    process.stderr.write(`gatehouse: ${error instanceof Error ? error.message : String(error)}\n`);
    end(EXIT_FAILED);
  });
}

// before any command loads the embedded database (engine-flags.ts)
if (isMain()) applyEngineFlags();

if (isMain() && process.argv[2] === 'serve') {
  // the embedded database's files are read and compiled while the server's modules load (early-start.ts)
  startServeEarly(process.argv.slice(3), process.env);
  // `gatehouse serve`: the server entry, loaded only for this command (the API client never loads the server)
  finish(
    import('./serve.js').then(({ serve }) => serve(process.argv.slice(3), process.env)),
    'exit',
  );
} else if (isMain() && (process.argv[2] === 'migrate' || process.argv[2] === 'admin')) {
  // `gatehouse migrate`, `gatehouse admin …`: the store commands, loaded only for them
  finish(
    import('./store-commands.js').then(({ runStoreCommand }) =>
      runStoreCommand(process.argv.slice(2), { env: process.env, cwd: process.cwd(), stdout: process.stdout, stderr: process.stderr }),
    ),
    'exit',
  );
} else if (isMain() && process.argv[2] === 'doctor') {
  // `gatehouse doctor`: checks a site configuration from this machine (cli/doctor.ts)
  finish(
    import('../cli/doctor.js').then(({ runDoctor }) =>
      runDoctor(process.argv.slice(3), { env: process.env, stdout: process.stdout, stderr: process.stderr, readFile: (path) => readFile(path, 'utf8'), now: Date.now }),
    ),
    'drain',
  );
} else if (isMain()) {
  // every other command: the API client, loaded only for it (the server's commands above never load it)
  finish(
    import('../cli/main.js').then(({ runCli }) =>
      runCli(process.argv.slice(2), {
        env: process.env,
        stdin: process.stdin,
        stdout: process.stdout,
        stderr: process.stderr,
        readFile: (path) => readFile(path, 'utf8'),
        homedir,
      }),
    ),
    'drain',
  );
}
