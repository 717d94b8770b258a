// Real Chromium stays people under the browser-evidence rule (SPEC §3): a
// first visit, a return with a warm cache under a new visitor token (a new
// forwarded address: the files are revalidated, so the request still
// arrives), and navigation inside the hydrated app under yet another token
// (the app's report is itself a browser's evidence). 100 % people.
import { expect, test, type Page } from '@playwright/test';

import { hydrated } from '../pages';
import { adminPorts } from '../servers';

const CHROME =
  'Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.0.0 Safari/537.36';
const base = `http://127.0.0.1:${adminPorts.sqlite}`;

type Counts = { people: number; bots: number; selfReads: number; total: number };

async function today(page: Page): Promise<Counts> {
  const cells = await page.locator('table.kinds-table tbody tr').first().locator('td').allTextContents();
  const [people, bots, selfReads, total] = cells.map(Number);
  return { people, bots, selfReads, total };
}

test('a real browser is people: first visit, warm cache, in-app navigation', async ({ browser, page }) => {
  test.setTimeout(90_000);
  await page.goto(`${base}/admin`);
  const before = await today(page);

  const context = await browser.newContext({
    userAgent: CHROME,
    extraHTTPHeaders: { 'x-forwarded-for': '198.18.7.1' },
  });
  // Every request for the page's files, with the answer's status.
  const files: { url: string; status: number; conditional: boolean }[] = [];
  context.on('response', async (response) => {
    if (!response.url().includes('/pkg/')) return;
    const headers = await response.request().allHeaders();
    files.push({ url: response.url(), status: response.status(), conditional: 'if-modified-since' in headers });
  });

  // 1. First visit, then navigation inside the app.
  const first = await context.newPage();
  await first.goto(`${base}/`);
  await hydrated(first);
  await first.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'About' }).click();
  await expect(first).toHaveURL(/\/about$/);
  await first.close();
  expect(files.some((f) => f.url.endsWith('.css') && f.status === 200)).toBe(true);

  // 2. A return with a warm cache, from a new address: the stylesheet is
  // revalidated (If-Modified-Since), not taken from the cache unasked.
  files.length = 0;
  await context.setExtraHTTPHeaders({ 'x-forwarded-for': '198.18.7.2' });
  const back = await context.newPage();
  await back.goto(`${base}/inventory`);
  await hydrated(back);
  const css = files.filter((f) => f.url.endsWith('.css'));
  console.log(
    `warm-cache return: the stylesheet answered ${css.map((f) => `${f.status}${f.conditional ? ' (asked If-Modified-Since)' : ''}`).join(', ')}`,
  );
  expect(css.length).toBeGreaterThan(0);
  // The browser asked whether its copy is current (the server answers 304;
  // Chromium reports the cached copy's 200): the request reached the server.
  expect(css.every((f) => f.conditional && (f.status === 304 || f.status === 200))).toBe(true);

  // 3. Navigation inside the app under a third address: only the app's report reaches the server.
  await context.setExtraHTTPHeaders({ 'x-forwarded-for': '198.18.7.3' });
  await back.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'About' }).click();
  await expect(back).toHaveURL(/\/about$/);
  await context.close();

  await expect
    .poll(
      async () => {
        await page.goto(`${base}/admin`);
        return today(page);
      },
      { timeout: 15_000 },
    )
    .toEqual({ ...before, people: before.people + 3, total: before.total + 3 });
});

/** Counted requests for `path` today, from the tab's public overview. */
async function requestsFor(page: Page, path: string): Promise<number> {
  const answer = await page.request.post(`${base}/api/admin/overview`, { form: { days: '7' } });
  const overview = await answer.json();
  const row = (overview.top_paths as { path: string; requests: number }[]).find((p) => p.path === path);
  return row?.requests ?? 0;
}

test('a prefetched page is counted once, when it is shown, not when it is fetched', async ({ browser, page }) => {
  test.setTimeout(60_000);
  const before = await requestsFor(page, '/about');
  const context = await browser.newContext({
    userAgent: CHROME,
    extraHTTPHeaders: { 'x-forwarded-for': '198.18.8.1' },
  });
  const prefetches: string[] = [];
  context.on('request', (request) => {
    const purpose = request.headers()['sec-purpose'];
    if (purpose) prefetches.push(`${purpose} ${new URL(request.url()).pathname}`);
  });
  const visit = await context.newPage();
  await visit.goto(`${base}/`);
  await hydrated(visit);
  // Speculation rules ask Chromium to prefetch /about.
  await visit.evaluate(() => {
    const rules = document.createElement('script');
    rules.type = 'speculationrules';
    rules.textContent = JSON.stringify({ prefetch: [{ source: 'list', urls: ['/about'] }] });
    document.head.append(rules);
  });
  await expect.poll(() => prefetches.some((p) => p.endsWith('/about')), { timeout: 10_000 }).toBe(true);
  // Fetched ahead, not shown: not counted.
  await visit.waitForTimeout(500);
  expect(await requestsFor(page, '/about')).toBe(before);

  // The reader follows the link (a document navigation, not the router's).
  await visit.evaluate(() => {
    window.location.href = '/about';
  });
  await expect(visit).toHaveURL(/\/about$/);
  await hydrated(visit);
  const delivery = await visit.evaluate(
    () => (performance.getEntriesByType('navigation')[0] as PerformanceNavigationTiming & { deliveryType?: string }).deliveryType,
  );
  expect(delivery).toBe('navigational-prefetch');
  // The app reported the page it was shown from the prefetch: counted once.
  await expect.poll(() => requestsFor(page, '/about'), { timeout: 10_000 }).toBe(before + 1);
  await context.close();
});
