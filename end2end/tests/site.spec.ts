// The demo site in a real browser: server-rendered pages, hydration, and
// navigation through the Leptos router without reloading the document.
import { expect, test, type Page } from '@playwright/test';

import { hydrated } from '../pages';

/** Fails the test on any console error or uncaught exception in the page. */
function watchForErrors(page: Page): string[] {
  const errors: string[] = [];
  page.on('console', (message) => {
    if (message.type() === 'error') errors.push(message.text());
  });
  page.on('pageerror', (error) => errors.push(error.message));
  return errors;
}

test('the router moves between pages without reloading the document', async ({ page }) => {
  const errors = watchForErrors(page);
  await page.goto('/');
  await expect(page.getByRole('heading', { level: 1 })).toContainText('small, sturdy tools');
  await hydrated(page);

  // A full page load would wipe this; client-side navigation keeps it.
  await page.evaluate(() => ((window as unknown as { marker: string }).marker = 'same document'));
  const marker = () => page.evaluate(() => (window as unknown as { marker?: string }).marker);

  // The inventory comes from a server function: after a client-side
  // navigation, the browser has to call it.
  const inventoryCall = page.waitForResponse(
    (response) => response.url().endsWith('/api/site/inventory') && response.ok(),
  );
  await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Inventory' }).click();
  await inventoryCall;
  await expect(page).toHaveURL(/\/inventory$/);
  await expect(page).toHaveTitle('Inventory · Mara Lindqvist');
  await expect(page.locator('.inventory-item')).toHaveCount(6);
  await expect(page.locator('.inventory-item').first()).toContainText('Tidewater');
  expect(await marker()).toBe('same document');

  await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'About' }).click();
  await expect(page).toHaveURL(/\/about$/);
  await expect(page.getByRole('heading', { level: 1 })).toHaveText('About');
  await expect(page.locator('main')).toContainText('I am Mara Lindqvist');
  expect(await marker()).toBe('same document');

  await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Résumé' }).click();
  await expect(page).toHaveURL(/\/resume$/);
  await expect(page.getByRole('heading', { level: 1 })).toHaveText('Résumé');
  await expect(page.getByRole('link', { name: 'resume.pdf' })).toHaveAttribute('href', '/resume.pdf');
  expect(await marker()).toBe('same document');

  // The current page is marked in the navigation.
  await expect(page.getByRole('link', { name: 'Résumé' })).toHaveAttribute('aria-current', 'page');
  expect(errors).toEqual([]);
});

test('the inventory loaded directly is in the first HTML and hydrates cleanly', async ({ page }) => {
  const errors = watchForErrors(page);
  const response = await page.goto('/inventory');
  expect((await response?.text())?.match(/class="inventory-item"/g)).toHaveLength(6);
  await hydrated(page);
  await expect(page.locator('.inventory-item')).toHaveCount(6);
  expect(errors).toEqual([]);
});

test('the résumé PDF is served as a PDF', async ({ page }) => {
  const response = await page.request.get('/resume.pdf');
  expect(response.status()).toBe(200);
  expect(response.headers()['content-type']).toBe('application/pdf');
  expect((await response.body()).subarray(0, 5).toString()).toBe('%PDF-');
});

test('the admin page hydrates and its range picker works', async ({ page }) => {
  const errors = watchForErrors(page);
  await page.goto('/admin');
  await hydrated(page);
  await expect(page.locator('.admin-page')).toHaveAttribute('data-interactive', 'true');
  await expect(page.locator('.range-status')).toContainText('The last 30 days');

  const sevenDays = page.getByRole('button', { name: '7 days' });
  await expect(sevenDays).toHaveAttribute('aria-pressed', 'false');
  await sevenDays.click();
  await expect(sevenDays).toHaveAttribute('aria-pressed', 'true');
  await expect(page.getByRole('button', { name: '30 days' })).toHaveAttribute('aria-pressed', 'false');
  await expect(page.locator('.range-status')).toContainText('The last 7 days');
  expect(errors).toEqual([]);
});

/** Every file under /pkg/ the page fetches, by name. */
function pageFiles(page: Page): string[] {
  const files: string[] = [];
  page.on('response', (response) => {
    const path = new URL(response.url()).pathname;
    if (path.startsWith('/pkg/')) files.push(path.slice('/pkg/'.length));
  });
  return files;
}

const tabCode = (file: string) => /^split_.*\.wasm$/.test(file);

// scripts/test builds the bundle with `cargo leptos build --split`: the
// Admin tab's code is a wasm file of its own, fetched only where it is shown.
test('a public page fetches none of the tab\'s code; going to the tab fetches it', async ({ page }) => {
  const errors = watchForErrors(page);
  const files = pageFiles(page);
  await page.goto('/');
  await hydrated(page);
  await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'About' }).click();
  await expect(page.getByRole('heading', { level: 1 })).toHaveText('About');
  expect(files).toContain('whocomes.wasm');
  expect(files.filter(tabCode), 'public pages must not load the Admin tab').toEqual([]);

  // Inside the app: the router fetches the tab's file, then shows the tab.
  await page.getByRole('link', { name: 'Who comes?' }).click();
  await expect(page).toHaveURL(/\/admin$/);
  await expect(page.locator('.range-status')).toContainText('The last 30 days');
  await expect
    .poll(() => files.filter(tabCode).length, { message: 'no split file: was the bundle built with --split?' })
    .toBe(1);
  await page.getByRole('button', { name: '7 days' }).click();
  await expect(page.locator('.range-status')).toContainText('The last 7 days');
  expect(errors).toEqual([]);
});

// Leptos also names the file in /admin's head (a preload), but only on some
// loads (a race in leptos_integration_utils 0.8.9: 5 of 12 in one probe), so
// the test asserts what a visitor needs: the file is fetched and the tab runs.
test('a direct load of the tab fetches its file and hydrates', async ({ page }) => {
  const errors = watchForErrors(page);
  const files = pageFiles(page);
  await page.goto('/admin');
  await hydrated(page);
  await expect(page.locator('.admin-page')).toHaveAttribute('data-interactive', 'true');
  expect(files.filter(tabCode)).toHaveLength(1);
  expect(errors).toEqual([]);
});

test('an unknown address shows the 404 page with a 404 status', async ({ page }) => {
  const response = await page.goto('/no/such/page');
  expect(response?.status()).toBe(404);
  await expect(page.getByRole('heading', { level: 1 })).toHaveText('Nothing here');
  await page.getByRole('link', { name: 'Back to the start' }).click();
  await expect(page).toHaveURL(/\/$/);
});

test('the stylesheet and favicon load', async ({ page }) => {
  const errors = watchForErrors(page);
  await page.goto('/about');
  await hydrated(page);
  const background = await page.evaluate(() => getComputedStyle(document.documentElement).backgroundColor);
  expect(background).toBe('rgb(251, 250, 247)');
  const favicon = await page.request.get('/favicon.ico');
  expect(favicon.status()).toBe(200);
  expect(errors).toEqual([]);
});

test('navigations inside the app are reported once each', async ({ page }) => {
  await page.goto('/');
  await hydrated(page);
  const reports: string[] = [];
  page.on('request', (request) => {
    if (request.url().includes('/api/whocomes/navigation')) reports.push(request.url());
  });
  const nav = page.getByRole('navigation', { name: 'Main' });
  const reported = page.waitForRequest((r) => r.url().includes('/api/whocomes/navigation?to=%2Fabout'));
  await nav.getByRole('link', { name: 'About' }).click();
  const request = await reported;
  expect(request.method()).toBe('POST');
  expect((await request.response())?.status()).toBe(204);
  await nav.getByRole('link', { name: 'Résumé' }).click();
  await expect(page).toHaveURL(/\/resume$/);
  await expect.poll(() => reports.length).toBe(2);
  expect(reports[1]).toContain('to=%2Fresume');
});
