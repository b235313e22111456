/**
 * The embedded database's data directory is private to the account gatehouse runs as: the directory and every
 * directory in it mode `0700`, every file `0600`. It holds every token digest, password hash, email and audit entry
 * (in its tables and in its write-ahead log), so no other local account may read it, and none may write it.
 *
 * PGlite writes through Emscripten's NODEFS, which creates each file with the mode PostgreSQL asks for and then sets
 * modes explicitly (its initial cluster comes out `0666` whatever the umask), so a umask is not enough: the file
 * system given to PGlite here takes the group and other bits off every mode it creates or sets, and the tree is
 * walked once PGlite is ready, for whatever that missed.
 *
 * A directory made by an earlier version (`0755`, files `0666`) is made private at start, and the caller is told so
 * it can log it. A directory that another account can write (group or other write bit) is refused instead: someone
 * else may have changed what is in it, and tightening the modes would hide that.
 *
 * @module
 */
import { chmodSync, lstatSync, readdirSync, statSync } from 'node:fs';
import { chmod, mkdir, stat } from 'node:fs/promises';
import { join } from 'node:path';
import { NodeFS } from '@electric-sql/pglite/nodefs';

/**
 * The mode of the data directory and every directory in it.
 *
 * @example
 * ```ts
 * DATA_DIRECTORY_MODE.toString(8); // '700'
 * ```
 */
export const DATA_DIRECTORY_MODE = 0o700;

/**
 * The mode of every file in the data directory (and of its lock).
 *
 * @example
 * ```ts
 * DATA_FILE_MODE.toString(8); // '600'
 * ```
 */
export const DATA_FILE_MODE = 0o600;

/** The permission bits of the group and of others. */
const NOT_OWNER = 0o077;
/** The write bits of the group and of others. */
const OTHERS_WRITE = 0o022;

/**
 * What was made private in a data directory that existed already.
 *
 * @example
 * ```ts
 * const fixed: PermissionsFixed = { dataDir: '/srv/.gatehouse/data', directories: 27, files: 969 };
 * ```
 */
export interface PermissionsFixed {
  /** The data directory. */
  readonly dataDir: string;
  /** How many directories (the data directory included) were set to `0700`. */
  readonly directories: number;
  /** How many files were set to `0600`. */
  readonly files: number;
}

/** The mode as `chmod` and `ls -l` users read it (`0755`). */
function octal(mode: number): string {
  return `0${(mode & 0o777).toString(8).padStart(3, '0')}`;
}

/**
 * Sets every directory under `dir` (and `dir`) to {@link DATA_DIRECTORY_MODE} and every file to {@link DATA_FILE_MODE}
 * where they allow more to the group or to others. Symbolic links under `dir` are left alone and not followed.
 *
 * The walk runs synchronously: it runs at every start of the embedded database, before the server listens, over
 * five hundred entries or more (a thousand in a directory an older seed made), and that many `lstat` calls take a few
 * milliseconds, where as many trips through the thread pool, each waiting for the main thread busy loading the
 * server's modules, took a start about 0.2 s.
 *
 * @param dir - The directory.
 * @returns How many directories and files were changed; rejects when one cannot be read or changed.
 * @example
 * ```ts
 * await restrictPermissions('/srv/.gatehouse/data'); // { directories: 0, files: 0 } once private
 * ```
 */
export async function restrictPermissions(dir: string): Promise<{ readonly directories: number; readonly files: number }> {
  let directories = 0;
  let files = 0;
  const visit = (path: string): void => {
    // the directory itself may be a symbolic link to where the data is; nothing under it is followed
    const info = path === dir ? statSync(path) : lstatSync(path);
    if (info.isDirectory()) {
      if ((info.mode & NOT_OWNER) !== 0) {
        chmodSync(path, DATA_DIRECTORY_MODE);
        directories++;
      }
      for (const name of readdirSync(path)) visit(join(path, name));
    } else if (info.isFile() && (info.mode & NOT_OWNER) !== 0) {
      chmodSync(path, DATA_FILE_MODE);
      files++;
    }
  };
  visit(dir);
  return { directories, files };
}

/**
 * Makes the data directory ready for PGlite: creates it (and its missing parents) `0700` when missing; refuses it
 * when another account can write it; otherwise makes what is looser private.
 *
 * @param dataDir - The data directory.
 * @returns What was changed in a directory that existed, or `null` when nothing was; rejects, naming the command
 *   that makes it private, when the group or others can write the directory, and when it is not a directory.
 * @example
 * ```ts
 * await prepareDataDirectory('/srv/.gatehouse/data'); // null for a new or private directory
 * // a directory an earlier version made: { dataDir: '/srv/.gatehouse/data', directories: 27, files: 969 }
 * ```
 */
export async function prepareDataDirectory(dataDir: string): Promise<PermissionsFixed | null> {
  const info = await stat(dataDir).catch((error: unknown) =>
    typeof error === 'object' && error !== null && 'code' in error && error.code === 'ENOENT' ? null : Promise.reject(error),
  );
  if (info === null) {
    await mkdir(dataDir, { recursive: true, mode: DATA_DIRECTORY_MODE });
    // the umask may have taken bits off, never added any; chmod makes the mode exact
    await chmod(dataDir, DATA_DIRECTORY_MODE);
    return null;
  }
  if (!info.isDirectory()) return Promise.reject(new Error(`the data directory ${dataDir} is not a directory`));
  if ((info.mode & OTHERS_WRITE) !== 0) {
    return Promise.reject(
      new Error(
        `the data directory ${dataDir} can be written by other users (mode ${octal(info.mode)}); check what is in it, then make it private: chmod 700 ${dataDir}`,
      ),
    );
  }
  const fixed = await restrictPermissions(dataDir);
  return fixed.directories + fixed.files === 0 ? null : { dataDir, ...fixed };
}

/** A `setattr` of NODEFS: a node or a stream, and the attributes to set. */
type SetAttributes = (target: unknown, attributes: unknown) => unknown;
/** NODEFS's `mknod`: creates a file or directory with a mode. */
type MakeNode = (parent: unknown, name: unknown, mode: number, device: unknown) => unknown;

/** `attributes` with the group and other bits taken off its mode, if it sets one. */
function privateAttributes(attributes: unknown): unknown {
  if (typeof attributes !== 'object' || attributes === null || !('mode' in attributes) || typeof attributes.mode !== 'number') return attributes;
  return { ...attributes, mode: attributes.mode & ~NOT_OWNER };
}

/** Wraps the `setattr` of a NODEFS operations table, if it has one. */
function restrictSetAttributes(operations: unknown): void {
  if (typeof operations !== 'object' || operations === null) return;
  const original: unknown = Reflect.get(operations, 'setattr');
  if (typeof original !== 'function') return;
  const setattr: SetAttributes = (target, attributes) => Reflect.apply(original, operations, [target, privateAttributes(attributes)]);
  Reflect.set(operations, 'setattr', setattr);
}

/**
 * Takes the group and other bits off every mode NODEFS creates a file or directory with or sets. Its operation
 * tables are shared by every node of the mount, so wrapping them once covers every file PGlite will write. Should a
 * PGlite version lay NODEFS out differently, nothing is wrapped, and the walk after start still applies.
 */
function restrictNodeFsModes(nodefs: unknown): boolean {
  if (typeof nodefs !== 'object' || nodefs === null) return false;
  const nodeOperations: unknown = Reflect.get(nodefs, 'node_ops');
  let wrapped = false;
  if (typeof nodeOperations === 'object' && nodeOperations !== null) {
    const original: unknown = Reflect.get(nodeOperations, 'mknod');
    if (typeof original === 'function') {
      const mknod: MakeNode = (parent, name, mode, device) => Reflect.apply(original, nodeOperations, [parent, name, mode & ~NOT_OWNER, device]);
      Reflect.set(nodeOperations, 'mknod', mknod);
      wrapped = true;
    }
  }
  restrictSetAttributes(nodeOperations);
  restrictSetAttributes(Reflect.get(nodefs, 'stream_ops'));
  return wrapped;
}

/**
 * PGlite's Node file system on `dataDir`, creating and setting only private modes (files `0600`, directories
 * `0700`). Pass it as PGlite's `fs`; the directory must exist (see {@link prepareDataDirectory}).
 *
 * @param dataDir - The data directory.
 * @returns The file system.
 * @example
 * ```ts
 * const db = new PGlite({ fs: privateNodeFs('/srv/.gatehouse/data') });
 * ```
 */
export function privateNodeFs(dataDir: string): PrivateNodeFs {
  return new PrivateNodeFS(dataDir);
}

/**
 * PGlite's Node file system that creates only private modes; {@link PrivateNodeFs.modesRestricted} says whether
 * that took (it did not when a PGlite version lays NODEFS out differently, and then only a walk makes files private).
 */
export interface PrivateNodeFs extends NodeFS {
  /** Whether every file and directory PGlite creates through it gets a private mode. */
  readonly modesRestricted: boolean;
}

/** NodeFS whose module's NODEFS is made private once mounted (see {@link restrictNodeFsModes}). */
class PrivateNodeFS extends NodeFS implements PrivateNodeFs {
  modesRestricted = false;

  override async init(...args: Parameters<NodeFS['init']>): ReturnType<NodeFS['init']> {
    const { emscriptenOpts } = await super.init(...args);
    // after NodeFS's own preRun, which mounts NODEFS on the data directory
    const restrict = (mod: { readonly NODEFS: unknown }): void => {
      this.modesRestricted = restrictNodeFsModes(mod.NODEFS);
    };
    return { emscriptenOpts: { ...emscriptenOpts, preRun: [...(emscriptenOpts.preRun ?? []), restrict] } };
  }
}
