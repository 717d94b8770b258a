// The Admin tab in a real browser, against the real binary on a fresh SQLite
// store and a fresh PostgreSQL store: a person, bots and a self-read come in;
// the tab's accessible table shows them by kind; every toggle and range
// works after hydration; the visitor table opens only after signing in.
import { expect, type APIRequestContext, type Browser, type Page } from '@playwright/test';

import { hydrated } from '../pages';
import { test } from '../people';
import { adminPassword, adminPorts, withPostgres } from '../servers';
import { settled, storeToday, today as todayOf, type Kinds } from '../settled';

const CHROME =
  'Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.0.0 Safari/537.36';

type Counts = { people: number; bots: number; selfReads: number; total: number };

/** Today's visitor-days by kind, from the tab's table (today is the first row). */
async function today(page: Page): Promise<Counts> {
  const cells = await page.locator('table.kinds-table tbody tr').first().locator('td').allTextContents();
  const [people, bots, selfReads, total] = cells.map(Number);
  return { people, bots, selfReads, total };
}

/** The tab's row for today as the overview's figures would draw it. */
function row(kinds: Kinds): Counts {
  return {
    people: kinds.people,
    bots: kinds.bots,
    selfReads: kinds.self_reads,
    total: kinds.people + kinds.bots + kinds.self_reads,
  };
}

/** Every Admin tab server: the SQLite one reads the PostgreSQL store too,
 * so a count waits for both writers. */
const writers = [
  `http://127.0.0.1:${adminPorts.sqlite}`,
  ...(withPostgres ? [`http://127.0.0.1:${adminPorts.postgres}`] : []),
];

/** A request from `address` (through the trusted proxy) with `agent`. */
function from(request: APIRequestContext, base: string, path: string, address: string, agent: string) {
  return request.get(`${base}${path}`, {
    headers: { 'x-forwarded-for': address, 'user-agent': agent, 'sec-fetch-dest': 'document' },
  });
}

/** A person from `address` (through the trusted proxy) reads `path`: a
 * windowed Chromium (../people.ts) loads the page and its files. */
async function browse(person: Browser, base: string, path: string, address: string) {
  const context = await person.newContext({ extraHTTPHeaders: { 'x-forwarded-for': address } });
  const page = await context.newPage();
  const answer = await page.goto(`${base}${path}`);
  await hydrated(page);
  await context.close();
  return answer;
}

const targets = [
  { name: 'sqlite', port: adminPorts.sqlite, net: 10 },
  ...(withPostgres ? [{ name: 'postgres', port: adminPorts.postgres, net: 20 }] : []),
];

for (const target of targets) {
  test.describe(`the Admin tab on ${target.name}`, () => {
    const base = `http://127.0.0.1:${target.port}`;
    const person = `198.51.100.${target.net}`;

    test('counts a person, bots and a self-read by kind; toggles, ranges and sign-in work', async ({
      person: personBrowser,
      request,
      page,
    }) => {
      test.setTimeout(90_000);
      // The tab's strict Content-Security-Policy must never block the page.
      const blocked: string[] = [];
      page.on('console', (message) => {
        if (/Content.Security.Policy/i.test(message.text())) blocked.push(message.text());
      });
      const first = await page.goto(`${base}/admin`);
      expect(first?.headers()['content-security-policy']).toContain("'wasm-unsafe-eval'");
      // Every earlier visitor written and summed: only this test's change the figures.
      const before = todayOf(await settled(request, base, writers));

      // A person browses the site (a windowed Chromium of its own, a client address).
      const context = await personBrowser.newContext({
        extraHTTPHeaders: { 'x-forwarded-for': person },
      });
      const visit = await context.newPage();
      await visit.goto(`${base}/`);
      await hydrated(visit);
      await visit.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Inventory' }).click();
      await expect(visit).toHaveURL(/\/inventory$/);
      await visit.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'About' }).click();
      await expect(visit).toHaveURL(/\/about$/);
      await context.close();

      // A crawler by its agent (from Google's published addresses), a scanner by its probe path, the site reading itself.
      expect((await from(request, base, '/about', `66.249.66.${target.net}`, 'Mozilla/5.0 (compatible; Googlebot/2.1)')).ok()).toBe(true);
      await from(request, base, '/wp-login.php', `203.0.113.${target.net + 1}`, CHROME);
      expect((await from(request, base, '/', `192.0.2.${target.net}`, 'curl/8.5 whocomes-SelfRead')).ok()).toBe(true);

      // The person's page and files, the crawler, the probe and the self-read written and summed.
      const after = todayOf(await settled(request, base, writers));
      expect(after).toEqual({
        people: before.people + 1,
        bots: before.bots + 2,
        self_reads: before.self_reads + 1,
      });
      // The tab draws those figures.
      await page.goto(`${base}/admin`);
      expect(await today(page)).toEqual(row(after));

      // Which bots: the crawler by its agent, the probe as a scanner.
      await expect(page.locator('.bots-card tr[data-bot-class="search-engine"] td').first()).not.toHaveText('0');
      await expect(page.locator('.bots-card tr[data-bot-class="scanner"] td').first()).not.toHaveText('0');

      // The toggles, after hydration; each keeps the range.
      await hydrated(page);
      expect(blocked).toEqual([]);
      const range = page.locator('.range-status');
      await expect(range).toContainText('The last 30 days');
      await expect(page.locator('table.kinds-table tbody tr')).toHaveCount(30);
      const chart = page.locator('.chart[role="group"]');
      await expect(chart).toHaveAttribute('aria-label', /Visitors per day/);
      await expect(chart.locator('svg')).toHaveCount(1);

      for (const days of [7, 90, 365, 30]) {
        await page.getByRole('button', { name: `${days} days` }).click();
        await expect(range).toContainText(`The last ${days} days`);
        await expect(page.locator('table.kinds-table tbody tr')).toHaveCount(days);
      }
      await page.getByRole('button', { name: '90 days' }).click();
      await expect(range).toContainText('The last 90 days');

      await page.getByRole('button', { name: 'Lines by store' }).click();
      await expect(chart).toHaveAttribute('aria-label', /one line per store/);
      await expect(page.locator('table.stores-table thead th')).toContainText([target.name]);
      await expect(range).toContainText('The last 90 days');
      await page.getByRole('button', { name: 'Lines by store' }).click();
      await expect(chart).toHaveAttribute('aria-label', /Visitors per day/);

      await expect(page.locator('.sources-card')).toHaveCount(0);
      await page.getByRole('button', { name: 'Where they came from' }).click();
      await expect(page.locator('.sources-card')).toContainText('typed and unknown');
      await expect(page.getByRole('button', { name: 'Where they came from' })).toHaveAttribute('aria-pressed', 'true');

      await expect(page.locator('.funnel-card')).toHaveCount(0);
      await page.getByRole('button', { name: 'The path through' }).click();
      await expect(page.locator('.funnel-card')).toContainText('Share of first');

      await page.getByRole('button', { name: 'Show as table' }).click();
      await expect(page.locator('table.kinds-table')).toBeVisible();
      await expect(range).toContainText('The last 90 days');

      // The visitor table: absent before signing in, refused to a direct call.
      await expect(page.locator('.visitor-table')).toHaveCount(0);
      const direct = await request.post(`${base}/admin/api/visitors`, { form: { days: '30' } });
      expect(direct.status()).toBe(401);
      const exportCall = await request.get(`${base}/admin/api/export/visitors.csv?range=30`);
      expect(exportCall.status()).toBe(401);

      // A wrong password fails; the right one opens the table.
      await page.getByLabel('Admin password').fill('not the password');
      await page.getByRole('button', { name: 'Sign in' }).click();
      await expect(page.locator('.visitors-card [role="alert"]')).toContainText('wrong password');
      await expect(page.locator('.visitor-table')).toHaveCount(0);

      await page.getByLabel('Admin password').fill(adminPassword);
      await page.getByRole('button', { name: 'Sign in' }).click();
      await expect(page.locator('.visitor-table')).toBeVisible();
      await expect(page.locator('.visitor-table')).toContainText('198.51.100.x');
      const cookie = (await page.context().cookies()).find((c) => c.name === 'whocomes_admin');
      expect(cookie?.httpOnly).toBe(true);
      expect(cookie?.sameSite).toBe('Strict');

      if (target.name === 'sqlite') {
        await page.getByRole('button', { name: 'Show as table' }).click();
        await page.getByRole('button', { name: '30 days' }).click();
        await expect(range).toContainText('The last 30 days');
      }

      await page.getByRole('button', { name: 'Sign out' }).click();
      await expect(page.locator('.visitor-table')).toHaveCount(0);
      await expect(page.getByLabel('Admin password')).toBeVisible();
    });
  });
}

test.describe('two servers, one view', () => {
  test.skip(!withPostgres, 'needs E2E_DATABASE_URL (scripts/test makes the database)');

  test('a visitor on both stores counts once merged and once per store line', async ({ page, person, request }) => {
    const sqlite = `http://127.0.0.1:${adminPorts.sqlite}`;
    const postgres = `http://127.0.0.1:${adminPorts.postgres}`;
    // Every earlier visitor written and summed on both stores.
    const before = await settled(request, sqlite, writers);
    const lines = async () => {
      const head = await page.locator('table.stores-table thead th').allTextContents();
      const row = await page.locator('table.stores-table tbody tr').first().locator('td').allTextContents();
      return Object.fromEntries(head.slice(1).map((name, i) => [name, Number(row[i])]));
    };

    // The same client on both sites, another only on the PostgreSQL one.
    for (const base of [sqlite, postgres]) {
      expect((await browse(person, base, '/about', '198.51.100.77'))?.ok()).toBe(true);
    }
    expect((await browse(person, postgres, '/resume', '198.51.100.78'))?.ok()).toBe(true);

    // Each server writes on its own schedule: wait for both writers.
    const after = await settled(request, sqlite, writers);
    // Merged, the client on both stores is one person; the other is a second.
    expect(todayOf(after)).toEqual({ ...todayOf(before), people: todayOf(before).people + 2 });
    // Per store, each line counts its own requests.
    expect({ sqlite: storeToday(after, 'sqlite'), postgres: storeToday(after, 'postgres') }).toEqual({
      sqlite: storeToday(before, 'sqlite') + 1,
      postgres: storeToday(before, 'postgres') + 2,
    });
    // The tab draws the same: the kinds merged, the lines by store.
    await page.goto(`${sqlite}/admin`);
    expect(await today(page)).toEqual(row(todayOf(after)));
    await hydrated(page);
    await page.getByRole('button', { name: 'Lines by store' }).click();
    expect(await lines()).toEqual({ sqlite: storeToday(after, 'sqlite'), postgres: storeToday(after, 'postgres') });
  });
});
