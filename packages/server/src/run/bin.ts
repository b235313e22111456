#!/usr/bin/env -S node --max-semi-space-size=4
/**
 * The `gatehouse` program (npm's bin): `gatehouse serve` runs the server, `gatehouse migrate` and
 * `gatehouse admin …` work on its store, and every other command is the API client ({@link runCli}). Each part is
 * loaded only for its command, so `gatehouse api` never loads the server.
 *
 * Its shebang runs `node` with `NODE_FLAGS`, and it sets the embedded database's WebAssembly flags itself
 * (engine-flags.ts).
 *
 * @module
 */
import { readFile } from 'node:fs/promises';
import { homedir } from 'node:os';
import { isEntryPoint } from '../kernel/entry-point.js';
import { EXIT_FAILED, runCli } from '../cli/main.js';
import { applyEngineFlags } from './engine-flags.js';
import { startServeEarly } from './early-start.js';

/** Whether this module is the program being run (not imported), also through npm's bin symlink. */
const isMain = (): boolean => isEntryPoint(import.meta.url);

// before any command loads the embedded database (engine-flags.ts)
if (isMain()) applyEngineFlags();

if (isMain() && process.argv[2] === 'serve') {
  // the embedded database's files are read and compiled while the server's modules load (early-start.ts)
  startServeEarly(process.argv.slice(3), process.env);
  // `gatehouse serve`: the server entry, loaded only for this command (the API client never loads the server)
  void import('./serve.js')
    .then(({ serve }) => serve(process.argv.slice(3), process.env))
    .then(
      (status) => process.exit(status),
      (error: unknown) => {
        process.stderr.write(`gatehouse: ${error instanceof Error ? error.message : String(error)}\n`);
        process.exit(EXIT_FAILED);
      },
    );
} else if (isMain() && (process.argv[2] === 'migrate' || process.argv[2] === 'admin')) {
  // `gatehouse migrate`, `gatehouse admin …`: the store commands, loaded only for them
  void import('./store-commands.js')
    .then(({ runStoreCommand }) =>
      runStoreCommand(process.argv.slice(2), { env: process.env, cwd: process.cwd(), stdout: process.stdout, stderr: process.stderr }),
    )
    .then(
      (status) => process.exit(status),
      (error: unknown) => {
        process.stderr.write(`gatehouse: ${error instanceof Error ? error.message : String(error)}\n`);
        process.exit(EXIT_FAILED);
      },
    );
} else if (isMain() && process.argv[2] === 'doctor') {
  // `gatehouse doctor`: checks a site configuration from this machine (cli/doctor.ts)
  void import('../cli/doctor.js')
    .then(({ runDoctor }) =>
      runDoctor(process.argv.slice(3), { env: process.env, stdout: process.stdout, stderr: process.stderr, readFile: (path) => readFile(path, 'utf8'), now: Date.now }),
    )
    .then(
      (status) => {
        process.exitCode = status;
      },
      (error: unknown) => {
        process.stderr.write(`gatehouse: ${error instanceof Error ? error.message : String(error)}\n`);
        process.exitCode = EXIT_FAILED;
      },
    );
} else if (isMain()) {
  void runCli(process.argv.slice(2), {
    env: process.env,
    stdin: process.stdin,
    stdout: process.stdout,
    stderr: process.stderr,
    readFile: (path) => readFile(path, 'utf8'),
    homedir,
  }).then(
    (status) => {
      process.exitCode = status;
    },
    (error: unknown) => {
      // Not expected (runCli reports its own failures); still exit 1 with one line, not a stack trace.
      process.stderr.write(`gatehouse: ${error instanceof Error ? error.message : String(error)}\n`);
      process.exitCode = EXIT_FAILED;
    },
  );
}
