/**
 * The API body reader: plain, gzip and deflate bodies, with the size limit on the received and on the
 * decompressed bytes. The inflater's output is counted at its source (every chunk a zlib stream pushes), so a
 * zip bomb is shown to stop after the limit plus at most one inflater chunk, not merely to end in a 413.
 */
import type { IncomingMessage } from 'node:http';
import { Readable } from 'node:stream';
import { deflateRawSync, deflateSync, gzipSync } from 'node:zlib';
import * as zlib from 'node:zlib';
import { fc, test as fcTest } from '@fast-check/vitest';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { hasTokenInQuery, readRequestBody } from '../../src/kernel/request-body.js';

const LIMIT = 1024 * 1024;

/** A request whose body is `body`, sent in chunks of `chunk` bytes, with these headers. */
function fakeRequest(body: Buffer, headers: Record<string, string>, chunk = 64 * 1024): IncomingMessage {
  const parts: Buffer[] = [];
  for (let i = 0; i < body.length; i += chunk) parts.push(body.subarray(i, i + chunk));
  const stream = Readable.from(parts, { objectMode: false }) as Readable & { headers: Record<string, string>; complete: boolean };
  stream.headers = headers;
  stream.complete = false;
  stream.on('end', () => {
    stream.complete = true;
  });
  return stream as unknown as IncomingMessage;
}

afterEach(() => {
  vi.restoreAllMocks();
});

describe('readRequestBody', () => {
  const json = '{"query":"{ currentUser { username } }","variables":null}';

  it('should read a plain body, and one with Content-Encoding identity', async () => {
    expect((await readRequestBody(fakeRequest(Buffer.from(json), {}), LIMIT))._unsafeUnwrap()).toBe(json);
    expect((await readRequestBody(fakeRequest(Buffer.from(json), { 'content-encoding': 'identity' }), LIMIT))._unsafeUnwrap()).toBe(json);
  });

  it('should decompress gzip, x-gzip and deflate (zlib format) bodies', async () => {
    for (const [encoding, bytes] of [
      ['gzip', gzipSync(json)],
      ['x-gzip', gzipSync(json)],
      ['GZIP', gzipSync(json)],
      ['deflate', deflateSync(json)],
      ['gzip, identity', gzipSync(json)],
    ] as const) {
      const read = await readRequestBody(fakeRequest(bytes, { 'content-encoding': encoding }), LIMIT);
      expect(read.isOk() ? read.value : read.error).toBe(json);
    }
  });

  it('should refuse codings it does not decode, and stacked codings, as unsupported', async () => {
    for (const encoding of ['br', 'zstd', 'compress', 'gzip, gzip', 'deflate, gzip']) {
      const read = await readRequestBody(fakeRequest(gzipSync(json), { 'content-encoding': encoding }), LIMIT);
      expect(read._unsafeUnwrapErr().code).toBe('unsupported_encoding');
    }
  });

  it('should refuse a body that is not data of its declared coding', async () => {
    expect((await readRequestBody(fakeRequest(Buffer.from(json), { 'content-encoding': 'gzip' }), LIMIT))._unsafeUnwrapErr()).toStrictEqual({
      code: 'invalid_compressed_body',
      encoding: 'gzip',
    });
    // raw deflate is not the zlib format RFC 9110 §8.4.1.2 names
    expect((await readRequestBody(fakeRequest(deflateRawSync(json), { 'content-encoding': 'deflate' }), LIMIT))._unsafeUnwrapErr().code).toBe(
      'invalid_compressed_body',
    );
    // a gzip stream cut short
    const cut = gzipSync(json).subarray(0, 20);
    expect((await readRequestBody(fakeRequest(cut, { 'content-encoding': 'gzip' }), LIMIT))._unsafeUnwrapErr().code).toBe('invalid_compressed_body');
  });

  it('should refuse invalid UTF-8 after decompression', async () => {
    const read = await readRequestBody(fakeRequest(gzipSync(Buffer.from([0x7b, 0xff, 0x7d])), { 'content-encoding': 'gzip' }), LIMIT);
    expect(read._unsafeUnwrapErr().code).toBe('invalid_utf8');
  });

  it('should accept a body that decompresses to exactly the limit, and refuse one a byte longer', async () => {
    const exact = Buffer.alloc(LIMIT, 0x20);
    expect((await readRequestBody(fakeRequest(gzipSync(exact), { 'content-encoding': 'gzip' }), LIMIT))._unsafeUnwrap().length).toBe(LIMIT);
    const over = Buffer.alloc(LIMIT + 1, 0x20);
    expect((await readRequestBody(fakeRequest(gzipSync(over), { 'content-encoding': 'gzip' }), LIMIT))._unsafeUnwrapErr()).toStrictEqual({
      code: 'body_too_large',
      limit: LIMIT,
    });
  });

  it('should stop a zip bomb (32 MiB of zeros in ~32 KiB) after at most the limit plus one 16 KiB inflater chunk of output', async () => {
    const bomb = gzipSync(Buffer.alloc(32 * 1024 * 1024), { level: 9 });
    expect(bomb.length).toBeLessThan(LIMIT);
    let inflated = 0;
    const push = zlib.Gunzip.prototype.push;
    vi.spyOn(zlib.Gunzip.prototype, 'push').mockImplementation(function (this: zlib.Gunzip, chunk: unknown, encoding?: BufferEncoding) {
      if (Buffer.isBuffer(chunk)) inflated += chunk.length;
      return push.call(this, chunk, encoding);
    });
    const read = await readRequestBody(fakeRequest(bomb, { 'content-encoding': 'gzip' }), LIMIT);
    expect(read._unsafeUnwrapErr()).toStrictEqual({ code: 'body_too_large', limit: LIMIT });
    expect(inflated).toBeGreaterThan(LIMIT);
    expect(inflated).toBeLessThanOrEqual(LIMIT + 16 * 1024);
  });

  it('should refuse more than the limit of compressed input, by Content-Length or while streaming', async () => {
    const big = Buffer.alloc(LIMIT + 10, 0x20);
    expect((await readRequestBody(fakeRequest(big, { 'content-length': String(big.length) }), LIMIT))._unsafeUnwrapErr().code).toBe('body_too_large');
    expect((await readRequestBody(fakeRequest(big, {}), LIMIT))._unsafeUnwrapErr().code).toBe('body_too_large');
  });

  fcTest.prop([fc.string({ unit: 'grapheme', maxLength: 300 }), fc.constantFrom('gzip', 'deflate', 'identity')], { numRuns: 100 })(
    'should return any UTF-8 text unchanged whatever the coding (round trip)',
    async (text, encoding) => {
      const bytes = encoding === 'gzip' ? gzipSync(text) : encoding === 'deflate' ? deflateSync(text) : Buffer.from(text);
      const read = await readRequestBody(fakeRequest(bytes, { 'content-encoding': encoding }, 7), LIMIT);
      expect(read._unsafeUnwrap()).toBe(text);
    },
  );
});

describe('hasTokenInQuery', () => {
  it.each([
    ['?token=gat_x', true],
    ['?access_token=gat_x', true],
    ['token=', true],
    ['?query=%7B%7D&access_token', true],
    ['?query=%7B%7D', false],
    ['?tokens=1', false],
    ['', false],
  ])('%s → %s', (search, expected) => {
    expect(hasTokenInQuery(search)).toBe(expected);
  });
});
