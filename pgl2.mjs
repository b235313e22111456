import { PGlite } from '@electric-sql/pglite';
import { readFileSync, writeFileSync } from 'node:fs';
if (process.argv[2] === 'dump') {
  const db = new PGlite('memory://');
  await db.waitReady;
  const blob = await db.dumpDataDir('gzip');
  writeFileSync('/tmp/seed.tar.gz', Buffer.from(await blob.arrayBuffer()));
  console.log('dump bytes', blob.size);
  await db.close();
} else {
  const t0 = performance.now();
  const db = new PGlite(process.argv[3], { loadDataDir: new Blob([readFileSync('/tmp/seed.tar.gz')]), postgresqlconf: ['shared_buffers=16MB','work_mem=1MB'] });
  await db.waitReady;
  console.log('ready ms', Math.round(performance.now() - t0), 'rss MB', Math.round(process.memoryUsage().rss / 1e6));
  await db.close();
}
