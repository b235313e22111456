/**
 * A free loopback port for a test server: listened on once and released, so the server that then binds it is
 * the only one that asked for it.
 */
import { createServer } from 'node:net';

/** A free port on 127.0.0.1. */
export async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      const port = typeof address === 'object' && address !== null ? address.port : 0;
      server.close(() => resolve(port));
    });
  });
}
