// The site and the Admin tab checked by axe-core (every rule it runs by
// default, best practices included): no violations on the public pages, on
// /admin signed out, and signed in with every toggle on; every control of
// the tab reachable by the keyboard, with a focus that can be seen.
import { expect, test, type Page } from '@playwright/test';

import { hydrated, violations } from '../pages';
import { adminPassword, adminPorts } from '../servers';

for (const scheme of ['light', 'dark'] as const) {
  for (const path of ['/', '/about', '/inventory', '/resume', '/admin']) {
    test(`axe finds nothing on ${path}, ${scheme}`, async ({ page }) => {
      await page.emulateMedia({ colorScheme: scheme });
      await page.goto(path);
      await hydrated(page);
      expect(await violations(page)).toEqual([]);
    });
  }
}

test('the dark scheme darkens the cards and the chart with them', async ({ page }) => {
  await page.emulateMedia({ colorScheme: 'dark' });
  await page.goto('/admin');
  await hydrated(page);
  // Asserted with retries: the hydrated tab may draw its chart again (a
  // detached element has no computed style), so each one is read afresh.
  const card = 'rgb(27, 33, 38)';
  await expect(page.locator('.chart-card')).toHaveCSS('background-color', card);
  await expect(
    page.locator('.chart svg rect').first(),
    "the chart's background is the card's",
  ).toHaveCSS('fill', card);
  await expect(page.locator('.chart svg text').first()).toHaveCSS('fill', 'rgb(230, 233, 235)');
});

for (const scheme of ['light', 'dark'] as const)
test(`axe finds nothing on the signed-in tab with every toggle on, ${scheme}`, async ({ page }) => {
  await page.emulateMedia({ colorScheme: scheme });
  await page.goto(`http://127.0.0.1:${adminPorts.sqlite}/admin`);
  await hydrated(page);
  await page.getByLabel('Admin password').fill(adminPassword);
  await page.getByRole('button', { name: 'Sign in' }).click();
  await expect(page.getByRole('button', { name: 'Sign out' })).toBeVisible();
  for (const name of ['Lines by store', 'Where they came from', 'The path through', 'Show as table']) {
    const toggle = page.getByRole('button', { name });
    if ((await toggle.getAttribute('aria-pressed')) !== 'true') await toggle.click();
    await expect(toggle).toHaveAttribute('aria-pressed', 'true');
  }
  expect(await violations(page)).toEqual([]);
});

test('the check itself fails a page with a violation', async ({ page }) => {
  await page.goto('/about');
  await hydrated(page);
  await page.evaluate(() => {
    const image = document.createElement('img');
    image.src = '/favicon.ico';
    document.querySelector('main')?.append(image);
  });
  expect((await violations(page)).some((line) => line.startsWith('image-alt:'))).toBe(true);
});

test('every control of the tab is reached by Tab, shows its focus, and works from the keyboard', async ({ page }) => {
  await page.goto(`http://127.0.0.1:${adminPorts.sqlite}/admin`);
  await hydrated(page);
  const controls = await page
    .locator('.admin-tab')
    .locator('a[href], button, input, select, textarea, [tabindex="0"]')
    .evaluateAll((all) => all.filter((e) => (e as HTMLElement).offsetParent !== null || e instanceof SVGElement).length);
  // A date field is three tab stops and its calendar button a fourth; the
  // button's focus ring is the browser's own, drawn inside the field, where
  // no style of the field shows it: there the field must look different
  // from how it looks unfocused.
  const unfocused = new Map<string, Buffer>();
  for (const name of ['from', 'to']) {
    unfocused.set(name, await page.locator(`.range-between input[name="${name}"]`).screenshot());
  }
  const reached = new Set<string>();
  for (let i = 0; i < 200 && reached.size < controls; i++) {
    await page.keyboard.press('Tab');
    const focused = await page.evaluate(() => {
      const element = document.activeElement;
      if (!element || !element.closest('.admin-tab')) return null;
      const style = getComputedStyle(element);
      const rect = element instanceof SVGElement ? element.querySelector('rect') : null;
      const shown =
        (style.outlineStyle !== 'none' && style.outlineWidth !== '0px') ||
        style.boxShadow !== 'none' ||
        (rect !== null && getComputedStyle(rect).strokeWidth !== '0px' && getComputedStyle(rect).stroke !== 'none');
      const path: string[] = [];
      for (let e: Element | null = element; e && e !== document.body; e = e.parentElement) {
        path.unshift(`${e.tagName}:${Array.from(e.parentElement?.children ?? []).indexOf(e)}`);
      }
      const dateField = element instanceof HTMLInputElement && element.type === 'date' ? element.name : null;
      return { key: path.join('/'), shown, dateField, name: element.getAttribute('aria-label') ?? element.textContent?.trim() };
    });
    if (focused && !focused.shown && focused.dateField) {
      const field = (await page.evaluateHandle(() => document.activeElement)).asElement()!;
      const looks = await field.screenshot();
      focused.shown = !looks.equals(unfocused.get(focused.dateField)!);
    }
    if (focused) {
      expect(focused.shown, `a visible focus on ${focused.name}`).toBe(true);
      reached.add(focused.key);
    }
  }
  expect(reached.size).toBe(controls);

  // Used from the keyboard: a range button pressed with Enter.
  await page.getByRole('button', { name: '7 days' }).focus();
  await page.keyboard.press('Enter');
  await expect(page.locator('.range-status')).toContainText('The last 7 days');
});

test('headings go down one level at a time', async ({ page }) => {
  for (const path of ['/', '/about', '/admin']) {
    await page.goto(path);
    const levels = await page.locator('h1, h2, h3, h4, h5, h6').evaluateAll((all) => all.map((h) => Number(h.tagName[1])));
    expect(levels[0], `${path} starts with h1`).toBe(1);
    for (let i = 1; i < levels.length; i++) {
      expect(levels[i] - levels[i - 1], `${path}: ${levels.join(' ')}`).toBeLessThanOrEqual(1);
    }
  }
});
