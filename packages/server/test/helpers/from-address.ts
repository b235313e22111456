/**
 * Requests from a chosen loopback address (127.0.0.1, 127.0.0.2, …: every 127/8 address is the local host on
 * Linux), so tests can play several clients against a server listening on 127.0.0.1, over keep-alive connections.
 */
import { Agent, request as httpRequest } from 'node:http';
import type { IncomingHttpHeaders } from 'node:http';

export interface Answer {
  readonly status: number;
  readonly headers: IncomingHttpHeaders;
  readonly text: string;
}

export interface Client {
  /** Sends one request from this client's address. */
  send(url: string, options?: { method?: string; path?: string; headers?: Readonly<Record<string, string>>; body?: string }): Promise<Answer>;
  /** Sends `count` requests built by `build(i)`, at most `concurrency` at a time, resolving with every answer's status. */
  flood(
    count: number,
    build: (i: number) => { url: string; method?: string; path?: string; headers?: Readonly<Record<string, string>>; body?: string },
    concurrency?: number,
  ): Promise<number[]>;
  close(): void;
}

export function clientAt(localAddress: string): Client {
  const agent = new Agent({ keepAlive: true, maxSockets: 32 });
  const send: Client['send'] = (url, options = {}) => {
    const target = new URL(url);
    return new Promise((resolve, reject) => {
      const req = httpRequest(
        {
          host: target.hostname,
          port: target.port,
          localAddress,
          agent,
          method: options.method ?? 'GET',
          path: options.path ?? '/',
          headers: options.headers ?? {},
        },
        (res) => {
          const chunks: Buffer[] = [];
          res.on('data', (c: Buffer) => chunks.push(c));
          res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, text: Buffer.concat(chunks).toString('utf8') }));
          res.on('error', reject);
        },
      );
      req.on('error', reject);
      req.end(options.body);
    });
  };
  return {
    send,
    async flood(count, build, concurrency = 16) {
      const statuses: number[] = new Array<number>(count);
      let next = 0;
      const worker = async (): Promise<void> => {
        while (next < count) {
          const i = next++;
          const { url, ...options } = build(i);
          statuses[i] = (await send(url, options)).status;
        }
      };
      await Promise.all(Array.from({ length: Math.min(concurrency, count) }, worker));
      return statuses;
    },
    close() {
      agent.destroy();
    },
  };
}
