// Browser tests: Debian's Chromium (never a downloaded browser) against the
// real `whocomes` binary, which Playwright starts and stops.
import { defineConfig } from '@playwright/test';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

import { chromiumArgs, chromiumPath } from './people';
import { adminPassword, adminPorts, port } from './servers';

const baseURL = `http://127.0.0.1:${port}`;
// The binary and the built site (wasm, CSS, public files); scripts/test builds both.
const binary = process.env.WHOCOMES_BIN ?? '../target/debug/whocomes';
const siteRoot = process.env.WHOCOMES_SITE_ROOT ?? '../target/site';
// A fresh data folder (SQLite file and key) for every run.
const dataDir = mkdtempSync(join(tmpdir(), 'whocomes-e2e-'));

// The Admin tab's servers: one on SQLite, one on PostgreSQL (a fresh database
// that scripts/test makes and names in E2E_DATABASE_URL), sharing a key, both
// behind a "proxy" (loopback is trusted, so tests pick client addresses with
// X-Forwarded-For). The SQLite one also reads the PostgreSQL store.
const adminDir = mkdtempSync(join(tmpdir(), 'whocomes-e2e-admin-'));
writeFileSync(join(adminDir, 'password'), `${adminPassword}\n`, { mode: 0o600 });
const postgresUrl = process.env.E2E_DATABASE_URL;
const adminFlags = (name: string, extra: string) =>
  `${binary} serve --addr 127.0.0.1:${adminPorts[name as keyof typeof adminPorts]} --site-root ${siteRoot} ` +
  `--data-dir ${join(adminDir, name)} --key e2e-shared-key --trusted-proxy 127.0.0.1/32 ` +
  `--admin-password-file ${join(adminDir, 'password')} --flush-ms 100 ` +
  `--funnel-step landing=/ --funnel-step reading=/about,/inventory ${extra}`;
const adminServer = (name: string, extra: string) => ({
  command: adminFlags(name, extra),
  url: `http://127.0.0.1:${adminPorts[name as keyof typeof adminPorts]}/about`,
  reuseExistingServer: false,
  // A cold debug build compresses the site's files at start.
  timeout: 120_000,
  env: { WHOCOMES_LOG: 'warn' },
  stdout: 'pipe' as const,
  stderr: 'pipe' as const,
});

export default defineConfig({
  testDir: './tests',
  forbidOnly: !!process.env.CI,
  retries: process.env.CI ? 1 : 0,
  workers: 1,
  timeout: 30_000,
  reporter: [['list'], ['html', { open: 'never' }]],
  use: {
    baseURL,
    trace: 'retain-on-failure',
    screenshot: 'only-on-failure',
    launchOptions: { executablePath: chromiumPath, args: chromiumArgs },
  },
  webServer: [
    {
      command: `${binary} serve --addr 127.0.0.1:${port} --site-root ${siteRoot} --data-dir ${dataDir} --flush-ms 200`,
      url: `${baseURL}/about`,
      reuseExistingServer: false,
      timeout: 120_000,
      env: { WHOCOMES_LOG: 'warn' },
      stdout: 'pipe',
      stderr: 'pipe',
    },
    ...(postgresUrl
      ? [
          adminServer('sqlite', `--read-store postgres=${postgresUrl}`),
          adminServer('postgres', `--store-url ${postgresUrl}`),
        ]
      : [adminServer('sqlite', '')]),
    // Its page files kept by the browser for a day (long-lived caching).
    adminServer('cached', '--files-max-age 86400'),
  ],
});
