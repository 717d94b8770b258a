// Every day of the Admin tab's chart tells its figures: pointed at or
// focused, its date and the three kinds show at the top of the plot; the
// same words are its title and accessible name, there without JavaScript.
import { expect, test } from '@playwright/test';

import { hydrated } from '../pages';

const tip = /^[A-Z][a-z]{2} \d{1,2}, \d{4}: \d+ (person|people), \d+ (scanner or crawler|scanners and crawlers), \d+ own reads?$/;

test('a day pointed at or focused shows its date and the three kinds', async ({ page }) => {
  await page.goto('/admin');
  await hydrated(page);
  const days = page.locator('.chart .day');
  await expect(days).toHaveCount(30);
  const last = days.last();
  await expect(last.locator('.tip')).toBeHidden();
  // The column itself (the group's box also holds its hidden words).
  await last.locator('rect').hover();
  await expect(last.locator('.tip')).toBeVisible();
  await expect(last.locator('.tip')).toHaveText(tip);

  // The keyboard reaches a day of a short range, and the words show.
  await page.getByRole('button', { name: '7 days' }).click();
  await expect(days).toHaveCount(7);
  await page.mouse.move(0, 0);
  await days.first().focus();
  await expect(days.first().locator('.tip')).toBeVisible();
  await expect(days.first()).toHaveAttribute('aria-label', tip);
});

test('without JavaScript every day still has its figures as a title', async ({ browser }) => {
  const context = await browser.newContext({ javaScriptEnabled: false });
  const page = await context.newPage();
  await page.goto('/admin');
  const titles = await page.locator('.chart .day title').allTextContents();
  expect(titles).toHaveLength(30);
  for (const title of titles) expect(title).toMatch(tip);
  await context.close();
});
