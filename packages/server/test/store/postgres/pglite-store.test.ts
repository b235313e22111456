/** The PostgreSQL store's SQL behaviour on the embedded driver, PGlite in memory. */
import { openPgliteDriver } from '../../../src/store/postgres/pglite.js';
import { describeSqlBehaviour } from './sql-behaviour.js';

describeSqlBehaviour('PostgreSQL store on PGlite in memory', () => openPgliteDriver({ memory: true }), 6);
