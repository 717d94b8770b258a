// A view of the Admin tab is its page's address: a link opens exactly that
// view (rendered by the server, so without JavaScript too), every control
// is a link to the view it makes, a custom from–to is a form, and Back and
// Forward move between views without a page load.
import { expect, test, type Page } from '@playwright/test';

import { hydrated } from '../pages';

const control = (page: Page, name: string) => page.getByRole('button', { name, exact: true });
const status = (page: Page) => page.locator('.range-status');

/** The UTC day `offset` days before today, as the form writes it. */
function day(offset: number): string {
  const date = new Date();
  date.setUTCDate(date.getUTCDate() - offset);
  return date.toISOString().slice(0, 10);
}

async function pickDays(page: Page, from: string, to: string) {
  await page.getByLabel('From', { exact: true }).fill(from);
  await page.getByLabel('To', { exact: true }).fill(to);
  await page.getByRole('button', { name: 'Show these days' }).click();
}

const everything = '/admin?range=7&chart=stores&sources=on&funnel=on&table=on';

for (const javaScript of [false, true]) {
  test(`a link opens exactly its view (JavaScript ${javaScript ? 'on' : 'off'})`, async ({ browser }) => {
    const context = await browser.newContext({ javaScriptEnabled: javaScript });
    const page = await context.newPage();
    await page.goto(everything);
    if (javaScript) await hydrated(page);
    await expect(status(page)).toHaveText('The last 7 days (UTC), beside the 7 days before.');
    for (const name of ['7 days', 'Lines by store', 'Where they came from', 'The path through', 'Show as table']) {
      await expect(control(page, name)).toHaveAttribute('aria-pressed', 'true');
    }
    await expect(control(page, '30 days')).toHaveAttribute('aria-pressed', 'false');
    await expect(page.locator('.sources-card')).toBeVisible();
    await expect(page.locator('.funnel-card')).toBeVisible();
    await expect(page.locator('.stores-table')).toBeVisible();
    await context.close();
  });
}

test('without JavaScript the controls and the from–to load their views from the server', async ({ browser }) => {
  const context = await browser.newContext({ javaScriptEnabled: false });
  const page = await context.newPage();
  await page.goto('/admin');
  await control(page, '90 days').click();
  await expect(page).toHaveURL(/\/admin\?range=90$/);
  await expect(status(page)).toContainText('The last 90 days');
  await control(page, 'Where they came from').click();
  await expect(page).toHaveURL(/\/admin\?range=90&sources=on$/);
  await expect(page.locator('.sources-card')).toBeVisible();

  await pickDays(page, day(10), day(4));
  await expect(page).toHaveURL(new RegExp(`/admin\\?from=${day(10)}&to=${day(4)}&sources=on$`));
  await expect(status(page)).toContainText('beside the 7 days before.');
  await expect(page.locator('.chart .day')).toHaveCount(7);
  await expect(page.locator('.sources-card')).toBeVisible();
  for (const name of ['7 days', '30 days', '90 days', '365 days']) {
    await expect(control(page, name)).toHaveAttribute('aria-pressed', 'false');
  }
  await context.close();
});

test('in the hydrated tab views change in place, and Back and Forward move between them', async ({ page }) => {
  await page.goto('/admin');
  await hydrated(page);
  // A page load would forget this.
  await page.evaluate(() => ((window as unknown as { sameDocument: boolean }).sameDocument = true));

  await control(page, '7 days').click();
  await expect(page).toHaveURL(/\/admin\?range=7$/);
  await expect(status(page)).toContainText('The last 7 days');
  await control(page, 'Where they came from').click();
  await expect(page).toHaveURL(/\/admin\?range=7&sources=on$/);
  await expect(page.locator('.sources-card')).toBeVisible();
  await pickDays(page, day(8), day(2));
  await expect(page).toHaveURL(new RegExp(`/admin\\?from=${day(8)}&to=${day(2)}&sources=on$`));
  await expect(status(page)).toContainText('beside the 7 days before.');
  await expect(page.locator('.sources-card')).toBeVisible();
  // Space presses a control as it would a button.
  await control(page, 'The path through').focus();
  await page.keyboard.press(' ');
  await expect(page).toHaveURL(/&sources=on&funnel=on$/);
  await expect(page.locator('.funnel-card')).toBeVisible();

  await page.goBack();
  await expect(page).toHaveURL(new RegExp(`from=${day(8)}&to=${day(2)}&sources=on$`));
  await expect(page.locator('.funnel-card')).toHaveCount(0);
  await expect(page.getByLabel('From', { exact: true })).toHaveValue(day(8));
  await page.goBack();
  await expect(page).toHaveURL(/\/admin\?range=7&sources=on$/);
  await expect(status(page)).toContainText('The last 7 days');
  await expect(control(page, '7 days')).toHaveAttribute('aria-pressed', 'true');
  await expect(page.getByLabel('From', { exact: true })).toHaveValue('');
  await page.goBack();
  await expect(page).toHaveURL(/\/admin\?range=7$/);
  await expect(page.locator('.sources-card')).toHaveCount(0);
  await expect(control(page, 'Where they came from')).toHaveAttribute('aria-pressed', 'false');
  await page.goBack();
  await expect(page).toHaveURL(/\/admin$/);
  await expect(status(page)).toContainText('The last 30 days');
  await page.goForward();
  await page.goForward();
  await expect(page).toHaveURL(/\/admin\?range=7&sources=on$/);
  await expect(page.locator('.sources-card')).toBeVisible();
  expect(await page.evaluate(() => (window as unknown as { sameDocument?: boolean }).sameDocument)).toBe(true);
});

test('a view that cannot be shown says why, and the tab shows the default', async ({ page }) => {
  await page.goto('/admin?range=45&sources=maybe&funnel=on');
  await hydrated(page);
  const alert = page.locator('.view-problems');
  await expect(alert).toHaveAttribute('role', 'alert');
  await expect(alert).toContainText('The range is 7, 30, 90 or 365 days, or from one date to another. Showing the last 30 days.');
  await expect(alert).toContainText('“sources” is on or off; it is shown off.');
  await expect(alert).not.toContainText('45');
  await expect(alert).not.toContainText('maybe');
  await expect(status(page)).toContainText('The last 30 days');
  await expect(page.locator('.funnel-card')).toBeVisible();
  // A good view clears it.
  await control(page, '7 days').click();
  await expect(alert).toHaveCount(0);
});

test("the exports keep to the view's days", async ({ page }) => {
  await page.goto('/');
  await page.goto(`/admin?from=${day(3)}&to=${day(0)}`);
  const hours = page.locator('.exports a').first();
  await expect(hours).toHaveAttribute('href', `/admin/api/export/hours.csv?from=${day(3)}&to=${day(0)}`);
  const rows = (text: string) => text.split('\n').filter((line) => line.trim()).slice(1);
  const current = rows(await (await page.request.get((await hours.getAttribute('href'))!)).text());
  expect(current.length).toBeGreaterThan(0);
  for (const row of current) expect(row.split(',')[1] >= day(3)).toBe(true);
  const past = await page.request.get(`/admin/api/export/hours.csv?from=${day(6)}&to=${day(1)}`);
  expect(past.status()).toBe(200);
  for (const row of rows(await past.text())) {
    const hour = row.split(',')[1];
    expect(hour >= day(6) && hour < day(0)).toBe(true);
  }
});
