// Notes on the chart in a real browser, over the demo: the signed-in
// admin adds one in the chart card; it is drawn as a mark on its day whose
// words show on hover and on keyboard focus, and in the table view; it is
// removed again. Then the digest of the same store, as `whocomes digest
// --preview` writes it, opened in Chromium at a phone's and a desktop's
// width, light and dark: its chart shows, nothing is wider than the
// screen, its text stays readable.
import { execFileSync, type ChildProcess } from 'node:child_process';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

import { expect, test } from '@playwright/test';

import { drawnAtCardWidth, hydrated, violations } from '../pages';
import { demoSummed, serveOn, stop } from '../serve';
import { adminPassword, notesPort } from '../servers';

const base = `http://127.0.0.1:${notesPort}`;
const binary = process.env.WHOCOMES_BIN ?? '../target/debug/whocomes';
const dataDir = mkdtempSync(join(tmpdir(), 'whocomes-e2e-notes-'));
let server: ChildProcess;

test.beforeAll(async () => {
  test.setTimeout(240_000);
  server = await serveOn(notesPort, dataDir, ['--demo', '--admin-password', adminPassword]);
  await demoSummed(base);
});

test.afterAll(async () => {
  await stop(server);
});

test('a note added in the tab is a mark on its day, told on hover and focus, and in the table', async ({ page }) => {
  // A debug build's sign-in hashes slowly, and the overview is read again.
  test.setTimeout(180_000);
  await page.goto(`${base}/admin?range=30&table=on`);
  await hydrated(page);
  await expect(page.locator('details.notes')).toHaveCount(0);
  await page.getByLabel('Admin password').fill(adminPassword);
  await page.getByRole('button', { name: 'Sign in' }).click();
  await expect(page.locator('details.notes')).toHaveCount(1);

  const day = await page.locator('table.kinds-table tbody tr').nth(3).locator('th').textContent();
  expect(day).toMatch(/^\d{4}-\d{2}-\d{2}$/);
  await page.locator('details.notes summary').click();
  await page.locator('.add-note input[name="day"]').fill(day!);
  await page.locator('.add-note input[name="text"]').fill('Released 0.3 <b>');
  await page.getByRole('button', { name: 'Add note' }).click();

  const mark = page.locator('.chart svg g.note');
  await expect(mark).toHaveCount(1);
  await drawnAtCardWidth(page);
  const words = `Released 0.3 <b>`;
  await expect(mark).toHaveAttribute('aria-label', new RegExp(`^Note, .*: ${words.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}$`));
  const tip = mark.locator('text.tip');
  await expect(tip).toBeHidden();
  await mark.locator('path').hover();
  await expect(tip).toBeVisible();
  await expect(tip).toHaveText(new RegExp(words.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')));
  // The mark lies over its own day's column.
  const over = await page.evaluate(() => {
    const line = document.querySelector('.chart svg g.note line') as SVGLineElement;
    const x = line.getBoundingClientRect().left;
    // Each day's own rectangle (its group also holds its words, drawn at
    // the plot's right).
    const columns = Array.from(document.querySelectorAll('.chart svg g.day > rect'));
    const index = columns.findIndex((column) => {
      const box = column.getBoundingClientRect();
      return box.left <= x && x <= box.right;
    });
    return { index, of: columns.length };
  });
  // The table lists days newest first; the chart, oldest first.
  expect(over.index).toBe(over.of - 1 - 3);

  // Keyboard: the mark takes focus and says its words.
  await page.mouse.move(0, 0);
  await mark.focus();
  await expect(tip).toBeVisible();

  // The table view has the note on its day.
  const row = page.locator('table.kinds-table tbody tr', { has: page.locator(`th:text-is("${day}")`) });
  await expect(row.locator('td.note-cell')).toHaveText(words);
  expect(await violations(page)).toEqual([]);

  // Removed again: no mark, no column.
  await page.getByRole('button', { name: 'Remove' }).click();
  await expect(mark).toHaveCount(0);
  await expect(page.locator('table.kinds-table td.note-cell')).toHaveCount(0);
});

test("the digest's preview reads on a phone and a desktop, light and dark", async ({ page }, info) => {
  test.setTimeout(90_000);
  const file = join(dataDir, 'digest.html');
  execFileSync(binary, [
    'digest',
    '--preview',
    file,
    '--data-dir',
    dataDir,
    '--store-name',
    'demo',
    '--digest',
    'weekly',
    '--funnel-step',
    'landing=/',
  ]);
  for (const [name, width] of [
    ['phone', 390],
    ['desktop', 1280],
  ] as const) {
    for (const scheme of ['light', 'dark'] as const) {
      await page.setViewportSize({ width, height: 900 });
      await page.emulateMedia({ colorScheme: scheme });
      await page.goto(`file://${file}`);
      const image = page.locator('img[alt^="Visitors per day"]');
      await expect(image).toBeVisible();
      const shown = await image.evaluate((img: HTMLImageElement) => ({
        natural: img.naturalWidth,
        width: img.getBoundingClientRect().width,
      }));
      expect(shown.natural, `${name} ${scheme}: the chart loaded`).toBeGreaterThan(500);
      expect(shown.width, `${name} ${scheme}: the chart fits`).toBeLessThanOrEqual(width);
      const overflow = await page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth);
      expect(overflow, `${name} ${scheme}: nothing wider than the screen`).toBeLessThanOrEqual(0);
      const colours = await page.locator('.card h1').evaluate((h1) => {
        const card = h1.closest('.card') as HTMLElement;
        return { ink: getComputedStyle(h1).color, paper: getComputedStyle(card).backgroundColor };
      });
      const light = (rgb: string) => rgb.match(/\d+/g)!.slice(0, 3).reduce((sum, n) => sum + Number(n), 0) / 3;
      const [ink, paper] = [light(colours.ink), light(colours.paper)];
      expect(Math.abs(ink - paper), `${name} ${scheme}: ink and paper apart (${JSON.stringify(colours)})`).toBeGreaterThan(150);
      expect(paper > ink, `${name} ${scheme}: paper behind the ink`).toBe(scheme === 'light');
      await expect(page.locator('h2', { hasText: 'Top pages' })).toBeVisible();
      await page.screenshot({ path: info.outputPath(`digest-${name}-${scheme}.png`), fullPage: true });
    }
  }
});
