// Filters in a real browser, over the demo: a click on LinkedIn in "Where
// they came from", then on /resume in "Top paths", narrows every card and
// the chart; the address carries both, a reload keeps them, Back removes
// the last; the bar above the cards removes one or all. The Visits and
// Campaigns cards show on the demo.
import { type ChildProcess } from 'node:child_process';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

import { expect, test, type Page } from '@playwright/test';

import { hydrated, violations } from '../pages';
import { demoSummed, serveOn, stop } from '../serve';
import { filtersPort } from '../servers';

const base = `http://127.0.0.1:${filtersPort}`;
let server: ChildProcess;

test.beforeAll(async () => {
  test.setTimeout(240_000);
  server = await serveOn(filtersPort, mkdtempSync(join(tmpdir(), 'whocomes-e2e-filters-')), ['--demo']);
  await demoSummed(base);
});

test.afterAll(async () => {
  await stop(server);
});

/** A headline figure's value. */
async function figure(page: Page, label: string): Promise<number> {
  return Number(await page.locator(`[data-figure="${label}"]`).first().textContent());
}

/** The people of the chart's days, summed from its accessible table. */
async function chartPeople(page: Page): Promise<number> {
  const cells = await page
    .locator('table.kinds-table tbody tr')
    .evaluateAll((rows) => rows.map((tr) => Number(tr.querySelector('td')?.textContent ?? 0)));
  return cells.reduce((sum, people) => sum + people, 0);
}

test('a click on a source, then on a path, narrows every card; reload keeps it, Back undoes one', async ({ page }) => {
  await page.goto(`${base}/admin?sources=on&table=on`);
  await hydrated(page);
  const everyone = await figure(page, 'People');
  expect(everyone).toBeGreaterThan(0);
  await expect(page.locator('.visits-card [data-figure="Pages per visitor-day"]')).toHaveText(/\d/);
  await expect(page.locator('.campaigns-card tr[data-campaign="december-notes"]')).toBeVisible();

  // LinkedIn, in "Where they came from".
  await page.locator('.sources-card a[data-filter-link="source"]', { hasText: 'LinkedIn' }).click();
  await expect(page).toHaveURL(/[?&]source=linkedin(&|$)/);
  await expect(page.locator('.filter-bar li[data-filter="source"]')).toContainText('source is linkedin');
  await expect.poll(() => figure(page, 'People')).toBeLessThan(everyone);
  const fromLinkedIn = await figure(page, 'People');
  expect(fromLinkedIn).toBeGreaterThan(0);
  await expect.poll(() => chartPeople(page)).toBe(fromLinkedIn);
  const linkedInRow = page.locator('.sources-card tr', { hasText: 'LinkedIn' }).locator('td');
  await expect(linkedInRow).toHaveText(String(fromLinkedIn));

  // /resume, in "Top paths".
  await page.locator('.paths-card a[data-filter-link="page"]', { hasText: '/resume' }).first().click();
  await expect(page).toHaveURL(/[?&]page=\/resume(&|$)/);
  await expect(page).toHaveURL(/[?&]source=linkedin(&|$)/);
  await expect.poll(() => figure(page, 'People')).toBeLessThan(fromLinkedIn);
  const readers = await figure(page, 'People');
  expect(readers).toBeGreaterThan(0);
  await expect.poll(() => chartPeople(page)).toBe(readers);
  await expect(page.locator('.filter-bar li')).toHaveCount(2);

  // A reload keeps both, rendered by the server.
  await page.reload();
  await hydrated(page);
  await expect(page.locator('.filter-bar li')).toHaveCount(2);
  expect(await figure(page, 'People')).toBe(readers);

  // The bar and the narrowed cards, light and dark: axe finds nothing.
  for (const scheme of ['light', 'dark'] as const) {
    await page.emulateMedia({ colorScheme: scheme });
    expect(await violations(page), scheme).toEqual([]);
  }
  await page.emulateMedia({ colorScheme: 'light' });

  // Back removes the last.
  await page.goBack();
  await expect(page).not.toHaveURL(/page=/);
  await expect(page.locator('.filter-bar li')).toHaveCount(1);
  await expect.poll(() => figure(page, 'People')).toBe(fromLinkedIn);

  // The bar removes a condition, and shows everything again.
  await page.getByRole('link', { name: 'Remove the condition on the source' }).click();
  await expect(page.locator('.filter-bar')).toHaveCount(0);
  await expect.poll(() => figure(page, 'People')).toBe(everyone);
});

test('without JavaScript a row is a link to the narrowed view', async ({ browser }) => {
  const context = await browser.newContext({ javaScriptEnabled: false });
  const page = await context.newPage();
  await page.goto(`${base}/admin?sources=on`);
  const everyone = await figure(page, 'People');
  await page.locator('.where-card a[data-filter-link="country"]').first().click();
  await expect(page).toHaveURL(/[?&]country=[A-Z]{2}(&|$)/);
  await expect(page.locator('.filter-bar li[data-filter="country"]')).toBeVisible();
  expect(await figure(page, 'People')).toBeLessThan(everyone);
  await page.locator('.filter-bar .filter-clear').click();
  expect(await figure(page, 'People')).toBe(everyone);
  await context.close();
});
