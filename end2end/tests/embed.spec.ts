// The embedding guide's code (docs/EMBEDDING.md), hydrated as its steps say: the example app
// (examples/embed, an axum app of its own with the whocomes builder) is
// started with the tab bundle scripts/build-embed-tab makes, and its tab at
// /stats is opened in Chromium as a person opens it. The page hydrates,
// its stylesheet is applied, and a chart toggle changes the view in place.
import { spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { existsSync, mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';

import { expect, test } from '@playwright/test';

import { embedPort } from '../servers';

const binary = resolve(process.env.EMBED_BIN ?? '../target/debug/whocomes-embed-example');
const bundle = resolve(process.env.EMBED_TAB_BUNDLE ?? '../target/embed-tab/pkg');
const base = `http://127.0.0.1:${embedPort}`;

async function serve(): Promise<ChildProcess> {
  if (!existsSync(join(bundle, 'tab.js'))) throw new Error(`no tab bundle in ${bundle}: run scripts/build-embed-tab`);
  const folder = mkdtempSync(join(tmpdir(), 'whocomes-e2e-embed-'));
  const child = spawn(binary, [], {
    cwd: folder,
    env: { ...process.env, ADDRESS: `127.0.0.1:${embedPort}`, TAB_BUNDLE: bundle, DATA_DIR: join(folder, 'data') },
    stdio: ['ignore', 'inherit', 'inherit'],
  });
  for (let attempt = 0; attempt < 600; attempt++) {
    if (child.exitCode !== null) throw new Error(`the example exited with ${child.exitCode}`);
    try {
      if ((await fetch(`${base}/`)).ok) return child;
    } catch {
      // Not listening yet.
    }
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  child.kill('SIGTERM');
  throw new Error('the example did not start serving within 60 s');
}

test('the embedded tab hydrates with its stylesheet, and a chart toggle changes the view in place', async ({ page }) => {
  const app = await serve();
  try {
    const problems: string[] = [];
    page.on('console', (message) => {
      if (message.type() === 'error') problems.push(message.text());
    });
    page.on('pageerror', (error) => problems.push(error.message));

    await page.goto(`${base}/stats`);
    await expect(page.locator('.tab-page')).toHaveAttribute('data-hydrated', 'true');
    // A page load would forget this.
    await page.evaluate(() => ((window as unknown as { sameDocument: boolean }).sameDocument = true));

    // The tab's own stylesheet, served beside it, is applied.
    const card = page.locator('.admin-tab .card').first();
    await expect(card).toHaveCSS('border-top-style', 'solid');
    await expect(card).toHaveCSS('border-top-left-radius', '8px');

    const byStore = page.getByRole('button', { name: 'Lines by store', exact: true });
    await expect(byStore).toHaveAttribute('aria-pressed', 'false');
    await byStore.click();
    await expect(page).toHaveURL(/\/stats\?chart=stores$/);
    await expect(byStore).toHaveAttribute('aria-pressed', 'true');
    await expect(page.locator('.chart-legend')).toContainText('sqlite');
    expect(await page.evaluate(() => (window as unknown as { sameDocument?: boolean }).sameDocument)).toBe(true);
    expect(problems).toEqual([]);
  } finally {
    const exited = once(app, 'exit');
    app.kill('SIGTERM');
    await exited;
  }
});
