// What more than one spec waits for on a page.
import AxeBuilder from '@axe-core/playwright';
import { expect, type Page } from '@playwright/test';

/** Waits until the app has hydrated (the app marks `#app` once it runs).
 * The first page of a run loads the debug wasm bundle cold while the
 * servers still start: a CI run once took more than expect's 5 s there. */
export async function hydrated(page: Page) {
  await expect(page.locator('#app')).toHaveAttribute('data-hydrated', 'true', { timeout: 20_000 });
}

/** Waits until the chart is drawn at its card's width (the browser draws it
 * again after the server's first paint, and on every resize); a page with
 * no chart never gets there. */
export async function drawnAtCardWidth(page: Page) {
  await expect
    .poll(
      () =>
        page.evaluate(() => {
          const svg = document.querySelector('.chart svg') as SVGSVGElement | null;
          const frame = document.querySelector('.chart-frame') as HTMLElement | null;
          return svg && frame
            ? Math.abs(svg.width.baseVal.value - Math.max(280, frame.clientWidth))
            : Number.POSITIVE_INFINITY;
        }),
      { message: "the chart is drawn at its card's width" },
    )
    .toBeLessThanOrEqual(1);
}

/** Asserts that the chart's legend is drawn and that none of its entries
 * overlaps the plotting area (`rect.plot-area`): every bar stays visible. */
export async function legendClearOfPlot(page: Page, context: string) {
  const boxes = await page.evaluate(() => {
    const plot = document.querySelector('.chart svg .plot-area')?.getBoundingClientRect();
    const entries = Array.from(document.querySelectorAll('.chart-legend li')).map((li) =>
      li.getBoundingClientRect().toJSON(),
    );
    return { plot: plot?.toJSON(), entries };
  });
  expect(boxes.plot, `${context}: the plot area is marked`).toBeTruthy();
  expect(boxes.entries.length, `${context}: the legend has entries`).toBeGreaterThan(0);
  const plot = boxes.plot as DOMRect;
  expect(plot.width * plot.height, `${context}: the plot has a size`).toBeGreaterThan(0);
  for (const entry of boxes.entries as DOMRect[]) {
    const apart =
      entry.right <= plot.left || entry.left >= plot.right || entry.bottom <= plot.top || entry.top >= plot.bottom;
    expect(apart, `${context}: a legend entry (${JSON.stringify(entry)}) over the plot (${JSON.stringify(plot)})`).toBe(true);
  }
}

/** axe's violations on the page as it is, one line each (rule: where). */
export async function violations(page: Page): Promise<string[]> {
  const results = await new AxeBuilder({ page }).analyze();
  return results.violations.flatMap((violation) =>
    violation.nodes.map((node) => `${violation.id}: ${node.target.join(' ')} — ${node.failureSummary ?? ''}`),
  );
}
