// What more than one spec waits for on a page.
import { expect, type Page } from '@playwright/test';

/** Waits until the app has hydrated (the app marks `#app` once it runs). */
export async function hydrated(page: Page) {
  await expect(page.locator('#app')).toHaveAttribute('data-hydrated', 'true');
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
