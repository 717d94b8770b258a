// The first run, as a newcomer has it: a fresh data folder, the site served
// as the README's first command serves it, a few pages read and /admin
// opened from this machine — so every visit is the site's own read. The tab
// must say why there are no people and what to do. Served again with
// --demo, the tab draws all three kinds and labels the demo store. The
// README's screenshot (docs/admin.png) is taken here, over the demo.
import { type ChildProcess } from 'node:child_process';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

import { expect, test, type Page } from '@playwright/test';

import { drawnAtCardWidth, hydrated, legendClearOfPlot } from '../pages';
import { serveOn, stop } from '../serve';
import { firstRunPort } from '../servers';
import { settled } from '../settled';

const base = `http://127.0.0.1:${firstRunPort}`;
const serve = (dataDir: string, extra: string[]) => serveOn(firstRunPort, dataDir, extra);

/** A headline figure's value. */
async function figure(page: Page, label: string): Promise<number> {
  return Number(await page.locator(`[data-figure="${label}"]`).textContent());
}

/** The range's visitor-days by kind, summed from the tab's table. */
async function kinds(page: Page) {
  const rows = page.locator('table.kinds-table tbody tr');
  const sums = { people: 0, bots: 0, selfReads: 0 };
  for (const cells of await rows.evaluateAll((trs) =>
    trs.map((tr) => Array.from(tr.querySelectorAll('td'), (td) => Number(td.textContent))),
  )) {
    sums.people += cells[0];
    sums.bots += cells[1];
    sums.selfReads += cells[2];
  }
  return sums;
}

test('first run: the empty tab explains itself; with --demo it shows three kinds and labels the demo', async ({
  page,
}) => {
  test.setTimeout(120_000);
  const dataDir = mkdtempSync(join(tmpdir(), 'whocomes-e2e-first-run-'));

  // 1. The site as the README serves it; a newcomer clicks around.
  let server = await serve(dataDir, []);
  try {
    await page.goto(`${base}/`);
    await hydrated(page);
    await page.getByRole('link', { name: 'Inventory' }).first().click();
    await expect(page).toHaveURL(/\/inventory$/);
    await page.goto(`${base}/about`);

    // Their visits arrive as the site's own reads, and the tab says why.
    const written = await settled(page.request, base, [base], 30);
    const own = written.days.reduce((sum, day) => sum + day.kinds.self_reads, 0);
    expect(own).toBeGreaterThan(0);
    await page.goto(`${base}/admin`);
    expect(await figure(page, 'Own reads')).toBe(own);
    await hydrated(page);
    expect(await figure(page, 'People')).toBe(0);
    const explanation = page.locator('[data-empty-state]');
    await expect(explanation).toBeVisible();
    await expect(explanation).toContainText('No people counted in the last 30 days yet.');
    await expect(explanation).toContainText("Visits from this machine (127.0.0.1 or ::1) are counted as the site's own reads");
    await expect(explanation).toContainText('--own-address none');
    await expect(explanation).toContainText('Bots and scanners are never people');
    await expect(explanation).toContainText('scripts/serve --demo');
    await expect(page.locator('[data-demo-notice]')).toHaveCount(0);
    await expect(page.locator('.chart-note')).toContainText("Visits from this machine count as the site's own reads");
  } finally {
    await stop(server);
  }

  // 2. Served again with the demo loaded: three kinds, the demo labelled.
  server = await serve(dataDir, ['--demo']);
  try {
    await page.goto(`${base}/admin`);
    await hydrated(page);
    await expect(page.locator('[data-demo-notice]')).toContainText('Demo data:');
    await expect(page.locator('[data-empty-state]')).toHaveCount(0);

    await page.getByRole('button', { name: '90 days' }).click();
    await expect(page.locator('.range-status')).toContainText('The last 90 days');
    const sums = await kinds(page);
    expect(sums.people).toBeGreaterThan(0);
    expect(sums.bots).toBeGreaterThan(0);
    expect(sums.selfReads).toBeGreaterThan(0);
    const legend = page.locator('.chart-legend');
    await expect(legend).toContainText('people');
    await expect(legend).toContainText('scanners and crawlers');

    const demoStore = page.locator('.stores-card li[data-store="demo"]');
    await expect(demoStore).toContainText('demo (demo data)');
    await expect(demoStore.locator('.sparkline svg polyline')).toHaveCount(1);
    await expect(page.locator('.stores-card li[data-store="sqlite"]')).not.toContainText('demo data');

    await page.getByRole('button', { name: 'Lines by store' }).click();
    await expect(legend).toContainText('demo (demo data)');
    await expect(page.locator('table.stores-table thead')).toContainText('demo (demo data)');
    await page.getByRole('button', { name: 'Lines by store' }).click();
    await expect(legend).toContainText('scanners and crawlers');

    await page.getByRole('button', { name: 'Where they came from' }).click();
    const sources = page.locator('.sources-card');
    for (const group of ['LinkedIn', 'GitHub', 'search', 'tagged', 'resume-pdf', 'typed and unknown']) {
      await expect(sources).toContainText(group);
    }
    await expect(sources.locator('thead')).toContainText('Visitor-days');

    await page.getByRole('button', { name: 'The path through' }).click();
    const funnel = page.locator('.funnel-card tbody tr');
    // Landing, three pages, then a goal as the last step (the résumé's PDF downloaded).
    await expect(funnel).toHaveCount(5);
    await expect(funnel.nth(4)).toContainText('downloaded');
    const reached = await funnel.evaluateAll((trs) => trs.map((tr) => Number(tr.querySelector('td')?.textContent)));
    expect(reached[0]).toBeGreaterThan(reached[3]);
    expect(reached[3]).toBeGreaterThan(reached[4]);
    expect(reached[4]).toBeGreaterThan(0);

    // The Goals card: the people who downloaded it, each visitor-day once,
    // as many as the funnel's goal step counts.
    const download = page.locator('.goals-card tr[data-goal="download"]');
    await expect(download.locator('td[data-column="people"]')).toHaveText(String(reached[4]));
    await expect(download.locator('td[data-column="share"]')).toHaveText(/^\d+ %$/);

    // The README's screenshots: a desktop (1280 px) and a phone (390 px),
    // light and dark, each once the chart is drawn again at its card's
    // width, the sources and the countries beside them; the legend
    // lies over no bar of the demo's busy days.
    // (the sources were turned on above; the countries' card is beside them)
    await expect(page.locator('.where-card')).toBeVisible();
    for (const [width, scheme, file] of [
      [1280, 'light', '../docs/admin.png'],
      [390, 'light', '../docs/admin-phone.png'],
      [1280, 'dark', '../docs/admin-dark.png'],
      [390, 'dark', '../docs/admin-phone-dark.png'],
    ] as const) {
      await page.emulateMedia({ colorScheme: scheme });
      await page.setViewportSize({ width, height: 900 });
      await drawnAtCardWidth(page);
      await legendClearOfPlot(page, `the demo at ${width} px, ${scheme}`);
      await page.screenshot({ path: file, fullPage: true });
    }
  } finally {
    await stop(server);
  }
});
