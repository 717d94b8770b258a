// Browser tests: Debian's Chromium (never a downloaded browser) against the
// real `whocomes` binary, which Playwright starts and stops.
import { defineConfig } from '@playwright/test';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

const port = Number(process.env.E2E_PORT ?? 3100);
const baseURL = `http://127.0.0.1:${port}`;
// The binary and the built site (wasm, CSS, public files); scripts/test builds both.
const binary = process.env.WHOCOMES_BIN ?? '../target/debug/whocomes';
const siteRoot = process.env.WHOCOMES_SITE_ROOT ?? '../target/site';
// A fresh data folder (SQLite file and key) for every run.
const dataDir = mkdtempSync(join(tmpdir(), 'whocomes-e2e-'));

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
    launchOptions: {
      executablePath: process.env.CHROMIUM_PATH ?? '/usr/bin/chromium',
      args: [
        '--no-sandbox',
        '--disable-gpu',
        '--disable-quic',
        '--no-first-run',
        '--disable-background-networking',
        '--disable-component-update',
        '--disable-sync',
      ],
    },
  },
  webServer: {
    command: `${binary} serve --addr 127.0.0.1:${port} --site-root ${siteRoot} --data-dir ${dataDir}`,
    url: `${baseURL}/about`,
    reuseExistingServer: false,
    timeout: 30_000,
    env: { WHOCOMES_LOG: 'warn' },
    stdout: 'pipe',
    stderr: 'pipe',
  },
});
