import { ensurePgliteSeed } from '../packages/server/src/store/postgres/pglite-seed.ts';
console.log(await ensurePgliteSeed(process.argv[2] ?? null));
