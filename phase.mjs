const t0 = performance.now();
const { PGlite } = await import('@electric-sql/pglite');
console.log('import pglite', Math.round(performance.now()-t0));
