/**
 * Extracts a gzipped ustar archive (what PGlite's `dumpDataDir('gzip')` writes) into a directory as it is
 * decompressed: each file is written as its bytes arrive, so memory holds one decompressed chunk at a time, not the
 * whole archive (a data directory's archive is about 40 MB, most of it one write-ahead log segment). The writes are
 * synchronous: they run before the server listens, and one system call per chunk costs less than a trip through the
 * thread pool for each of a thousand small files.
 *
 * Only directories and regular files are accepted; links, devices, extended headers and paths that would leave the
 * root (`..`) reject, as does an archive cut short.
 *
 * @module
 */
import { closeSync, mkdirSync, openSync, writeSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { createGunzip } from 'node:zlib';

const BLOCK = 512;
const decoder = new TextDecoder();

/** An octal number field of a tar header. */
function octalField(header: Uint8Array, offset: number, length: number): number {
  const text = decoder.decode(header.subarray(offset, offset + length)).replace(/[\0 ]+$/u, '').trim();
  return text === '' ? 0 : Number.parseInt(text, 8);
}

/** A NUL-terminated text field of a tar header. */
function textField(header: Uint8Array, offset: number, length: number): string {
  const field = header.subarray(offset, offset + length);
  const end = field.indexOf(0);
  return decoder.decode(end === -1 ? field : field.subarray(0, end));
}

/** Writes all of `bytes[from, from + length)` to `fd`. */
function writeAll(fd: number, bytes: Uint8Array, from: number, length: number): void {
  for (let written = 0; written < length; ) written += writeSync(fd, bytes, from + written, length - written);
}

/** The archive's state between chunks: a header being filled, a file being written, or padding being skipped. */
class TarWriter {
  files = 0;
  private readonly header = new Uint8Array(BLOCK);
  private headerFill = 0;
  private file: { fd: number; remaining: number; path: string } | null = null;
  private padding = 0;
  private skip = 0;
  private ended = false;

  private readonly name: string;
  private readonly root: string;
  private readonly dirMode: number;
  private readonly fileMode: number;

  constructor(name: string, root: string, dirMode: number, fileMode: number) {
    this.name = name;
    this.root = root;
    this.dirMode = dirMode;
    this.fileMode = fileMode;
  }

  push(chunk: Uint8Array): void {
    for (let i = 0; i < chunk.length && !this.ended; ) {
      if (this.skip > 0) {
        const n = Math.min(this.skip, chunk.length - i);
        this.skip -= n;
        i += n;
      } else if (this.file !== null) {
        const n = Math.min(this.file.remaining, chunk.length - i);
        writeAll(this.file.fd, chunk, i, n);
        this.file.remaining -= n;
        i += n;
        if (this.file.remaining === 0) this.closeFile();
      } else {
        const n = Math.min(BLOCK - this.headerFill, chunk.length - i);
        this.header.set(chunk.subarray(i, i + n), this.headerFill);
        this.headerFill += n;
        i += n;
        if (this.headerFill === BLOCK) {
          this.headerFill = 0;
          this.entry(this.header);
        }
      }
    }
  }

  /** Checks the archive ended on an entry's boundary; returns how many files were written. */
  finish(): number {
    if (this.file !== null) throw new Error(`${this.name} is cut short at ${this.file.path}`);
    if (this.headerFill !== 0) throw new Error(`${this.name} is cut short in a header`);
    return this.files;
  }

  /** Closes the file being written, if any (also on failure). */
  abandon(): void {
    if (this.file !== null) closeSync(this.file.fd);
    this.file = null;
  }

  private closeFile(): void {
    this.abandon();
    this.skip = this.padding;
  }

  private entry(header: Uint8Array): void {
    if (header.every((b) => b === 0)) {
      this.ended = true;
      return;
    }
    const prefix = textField(header, 345, 155);
    const name = textField(header, 0, 100);
    const path = (prefix === '' ? name : `${prefix}/${name}`).replace(/^\/+/u, '').replace(/\/+$/u, '');
    const type = String.fromCharCode(header[156] ?? 0);
    const size = octalField(header, 124, 12);
    if (path.split('/').some((part) => part === '..' || part === '.')) throw new Error(`${this.name} holds a path outside its root: ${path}`);
    if (type !== '5' && type !== '0' && type !== '\0') throw new Error(`${this.name} holds an entry of type ${JSON.stringify(type)}: ${path}`);
    if (!Number.isSafeInteger(size) || size < 0) throw new Error(`${this.name} holds an entry of a bad size: ${path}`);
    const padding = Math.ceil(size / BLOCK) * BLOCK - size;
    if (path === '' || type === '5') {
      if (path !== '') mkdirSync(join(this.root, ...path.split('/')), { recursive: true, mode: this.dirMode });
      // a directory entry carries no data; any it claims is skipped
      this.skip = size + padding;
      return;
    }
    const target = join(this.root, ...path.split('/'));
    mkdirSync(dirname(target), { recursive: true, mode: this.dirMode });
    const fd = openSync(target, 'w', this.fileMode);
    this.files += 1;
    this.padding = padding;
    this.file = { fd, remaining: size, path };
    if (size === 0) this.closeFile();
  }
}

/**
 * Extracts a gzipped ustar archive into `root` (which exists), directories made with `dirMode` and files with
 * `fileMode`.
 *
 * @param archive - The gzipped archive.
 * @param name - What the archive is, in messages (`the PGlite seed`).
 * @param root - The directory to extract into.
 * @param modes - The modes of new directories and files.
 * @returns How many files were written; rejects on a damaged archive or an entry it does not accept (what was
 *   written so far stays: extract into a directory of its own).
 * @example
 * ```ts
 * await extractGzipTar(seed, 'the PGlite seed', '/srv/.gatehouse/data.unpacking-42', { dirMode: 0o700, fileMode: 0o600 }); // 1084
 * ```
 */
export function extractGzipTar(archive: Uint8Array, name: string, root: string, modes: { readonly dirMode: number; readonly fileMode: number }): Promise<number> {
  return new Promise<number>((resolve, reject) => {
    const writer = new TarWriter(name, root, modes.dirMode, modes.fileMode);
    const gunzip = createGunzip();
    let failed = false;
    const fail = (error: unknown): void => {
      if (failed) return;
      failed = true;
      writer.abandon();
      gunzip.destroy();
      reject(error instanceof Error ? error : new Error(String(error)));
    };
    gunzip.on('data', (chunk: Buffer) => {
      if (failed) return;
      try {
        writer.push(chunk);
      } catch (error) {
        fail(error);
      }
    });
    gunzip.on('end', () => {
      if (failed) return;
      try {
        resolve(writer.finish());
      } catch (error) {
        fail(error);
      }
    });
    gunzip.on('error', fail);
    gunzip.end(archive);
  });
}
