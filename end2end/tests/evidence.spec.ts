// Real Chromium stays people under the browser-evidence rule (SPEC §3): a
// first visit, a return with a warm cache under a new visitor token (a new
// forwarded address: the files are revalidated, so the request still
// arrives), and navigation inside the hydrated app under yet another token
// (the app's report is itself a browser's evidence). 100 % people. The
// person is Chromium in a window with its own agent (../people.ts); the same
// Chromium wearing another agent through Playwright's `userAgent` is a tool
// in a browser's clothes, and the last test counts it as one.
import { expect, type Page } from '@playwright/test';

import { hydrated } from '../pages';
import { test } from '../people';
import { adminPorts, withPostgres } from '../servers';
import { settled, today } from '../settled';

/** Chrome 131's agent, as a tool puts it on over this Chromium. */
const CHROME_131 =
  'Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.0.0 Safari/537.36';
const base = `http://127.0.0.1:${adminPorts.sqlite}`;
/** The servers whose stores this one reads (it reads the PostgreSQL store too). */
const writers = [base, ...(withPostgres ? [`http://127.0.0.1:${adminPorts.postgres}`] : [])];

/** The app's report of the page it shows (a navigation in the app, or a
 * page the browser fetched ahead), answered: its hit is queued. */
function reported(page: Page) {
  return page.waitForResponse((response) => response.url().includes('/api/whocomes/navigation'), { timeout: 30_000 });
}

test('a real browser is people: first visit, warm cache, in-app navigation', async ({ person, request }) => {
  test.setTimeout(90_000);
  // Every earlier visitor written and summed: only this test's three change the figures.
  const before = today(await settled(request, base, writers));

  const context = await person.newContext({
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
  const firstReport = reported(first);
  await first.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'About' }).click();
  await expect(first).toHaveURL(/\/about$/);
  expect((await firstReport).status()).toBe(204);
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
  const backReport = reported(back);
  await back.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'About' }).click();
  await expect(back).toHaveURL(/\/about$/);
  expect((await backReport).status()).toBe(204);
  await context.close();

  // Their pages, files and the app's reports written and summed: three people, nothing else.
  const after = today(await settled(request, base, writers));
  expect(after).toEqual({ ...before, people: before.people + 3 });
});

/** Counted requests for `path` in the last week, once every server has
 * written what it counted and the figures are current. */
async function requestsFor(page: Page, path: string): Promise<number> {
  const overview = await settled(page.request, base, writers);
  return overview.top_paths.find((p) => p.path === path)?.requests ?? 0;
}

test('a prefetched page is counted once, when it is shown, not when it is fetched', async ({ person, page }) => {
  test.setTimeout(60_000);
  const before = await requestsFor(page, '/about');
  const context = await person.newContext({
    extraHTTPHeaders: { 'x-forwarded-for': '198.18.8.1' },
  });
  // Prefetches the server has answered (so their hit, if any, is queued).
  const prefetches: string[] = [];
  context.on('requestfinished', (request) => {
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
  await expect.poll(() => prefetches.some((p) => p.endsWith('/about')), { timeout: 30_000 }).toBe(true);
  // Fetched ahead, not shown: not counted (once written, it would show).
  expect(await requestsFor(page, '/about')).toBe(before);

  // The reader follows the link (a document navigation, not the router's).
  const report = reported(visit);
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
  expect((await report).status()).toBe(204);
  await context.close();
  expect(await requestsFor(page, '/about')).toBe(before + 1);
});

test('a page whose script posts at once to a non-/api path is people', async ({ person, request }) => {
  test.setTimeout(90_000);
  const before = today(await settled(request, base, writers));
  const context = await person.newContext({
    extraHTTPHeaders: { 'x-forwarded-for': '198.18.9.1' },
  });
  // The page's own script: a view counter posting the moment the page loads.
  await context.addInitScript(() => {
    addEventListener('DOMContentLoaded', () => {
      void fetch('/views', { method: 'POST', body: 'seen' });
    });
  });
  const page = await context.newPage();
  const posted = page.waitForRequest((r) => r.url().endsWith('/views') && r.method() === 'POST');
  await page.goto(`${base}/resume`);
  const post = await posted;
  // Chromium marks it as a script's request, not a form's.
  expect((await post.allHeaders())['sec-fetch-mode']).toBe('cors');
  await hydrated(page);
  await context.close();
  const after = today(await settled(request, base, writers));
  expect(after).toEqual({ ...before, people: before.people + 1 });
});

test('a return with the files in a long-lived cache is people (the app reports it)', async ({ person, request }) => {
  test.setTimeout(90_000);
  const cached = `http://127.0.0.1:${adminPorts.cached}`;
  const before = today(await settled(request, cached, [cached]));
  const context = await person.newContext({
    extraHTTPHeaders: { 'x-forwarded-for': '198.18.10.1' },
  });
  // 1. A first visit: the files come from the server, kept for a day.
  const first = await context.newPage();
  await first.goto(`${cached}/`);
  await hydrated(first);
  await first.close();
  // 2. A return under a new visitor token: the browser asks for the page alone.
  await context.setExtraHTTPHeaders({ 'x-forwarded-for': '198.18.10.2' });
  const back = await context.newPage();
  // Which of the page's files the browser took from its cache, by Chromium's own word.
  const fromCache = new Set<string>();
  const network = new Map<string, string>();
  const cdp = await context.newCDPSession(back);
  await cdp.send('Network.enable');
  cdp.on('Network.requestWillBeSent', (e) => network.set(e.requestId, e.request.url));
  cdp.on('Network.requestServedFromCache', (e) => fromCache.add(network.get(e.requestId) ?? ''));
  cdp.on('Network.responseReceived', (e) => {
    if (e.response.fromDiskCache) fromCache.add(e.response.url);
  });
  const drawn = back.waitForRequest((r) => r.url().endsWith('/api/whocomes/navigation?drawn'), { timeout: 30_000 });
  await back.goto(`${cached}/about`);
  await hydrated(back);
  await drawn;
  const cachedFiles = [...fromCache].filter((url) => url.includes('/pkg/'));
  console.log(`return with a long-lived cache: ${cachedFiles.length} of the page's files taken from the browser's cache`);
  expect(cachedFiles.length).toBeGreaterThan(0);
  await context.close();
  const after = today(await settled(request, cached, [cached]));
  expect(after).toEqual({ ...before, people: before.people + 2 });
});

test("a context with `userAgent` set is an impostor: its own hints contradict the agent it wears", async ({
  browser,
  request,
}) => {
  test.setTimeout(90_000);
  const before = today(await settled(request, base, writers));
  // Headless Chromium 1xx, with Chrome 131's agent put on: it fetches the
  // page's files and runs its script, as a person's browser would.
  const context = await browser.newContext({
    userAgent: CHROME_131,
    extraHTTPHeaders: { 'x-forwarded-for': '198.18.11.1' },
  });
  const page = await context.newPage();
  const loaded = page.waitForRequest((r) => r.resourceType() === 'document');
  await page.goto(`${base}/`);
  await hydrated(page);
  const hints = (await (await loaded).allHeaders())['sec-ch-ua'] ?? '';
  await context.close();
  // Its own version, not the agent's: what gives it away.
  expect(hints).not.toContain('"131"');
  const after = today(await settled(request, base, writers));
  expect(after).toEqual({ ...before, bots: before.bots + 1 });
});
