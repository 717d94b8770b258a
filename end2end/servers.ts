// Where the e2e servers listen and how to sign in to their Admin tabs:
// shared by the Playwright config (which starts the servers) and the tests.
export const port = Number(process.env.E2E_PORT ?? 3100);
export const adminPassword = 'e2e admin passphrase';
/** The Admin tab's servers: one on SQLite (it also reads the PostgreSQL
 * store), one on PostgreSQL; both trust loopback as their proxy. */
export const adminPorts = { sqlite: port + 1, postgres: port + 2, cached: port + 4 };
/** The server first-run.spec starts and stops itself. Every port of the
 * e2e is named here, so that no two servers are given the same one. */
export const firstRunPort = port + 3;
/** The example app that embeds whocomes (embed.spec starts it itself). */
export const embedPort = port + 5;
/** The demo filters.spec starts and stops itself. */
export const filtersPort = port + 6;
/** The demo notes.spec starts and stops itself (notes on the chart, the
 * digest's preview). */
export const notesPort = port + 7;
/** Whether the PostgreSQL server runs (scripts/test makes its database). */
export const withPostgres = !!process.env.E2E_DATABASE_URL;
