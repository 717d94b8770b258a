// The site and the tab on a phone and a desktop: nothing runs off the right
// edge at 360, 390 and 1280 CSS px, the chart's words stay legible (at
// least 12 CSS px as drawn) at every width, and no legend entry lies over
// the plot.
import { expect, test, type Page } from '@playwright/test';

import { drawnAtCardWidth, hydrated, legendClearOfPlot } from '../pages';

/** The smallest font size of the chart's words, in CSS px as drawn (the
 * SVG's own size times how much it is scaled on the page). */
async function smallestChartText(page: Page): Promise<number> {
  return page.locator('.chart svg').evaluate((svg) => {
    const drawn = (svg as SVGSVGElement).width.baseVal.value;
    const scale = svg.getBoundingClientRect().width / drawn;
    const sizes = Array.from(svg.querySelectorAll('text:not(.tip)'))
      .filter((t) => (t.textContent ?? '').trim() !== '')
      .map((t) => parseFloat(getComputedStyle(t).fontSize) * scale);
    return Math.min(...sizes);
  });
}

for (const width of [360, 390, 1280]) {
  test(`nothing overflows at ${width} px; the chart's words stay legible`, async ({ page }) => {
    await page.setViewportSize({ width, height: 800 });
    for (const path of ['/', '/about', '/inventory', '/resume', '/admin']) {
      await page.goto(path);
      await hydrated(page);
      const { scroll, client } = await page.evaluate(() => ({
        scroll: document.documentElement.scrollWidth,
        client: document.documentElement.clientWidth,
      }));
      expect(scroll, `${path} at ${width} px`).toBeLessThanOrEqual(client);
    }
    // Drawn again at the card's width once the page runs.
    await drawnAtCardWidth(page);
    for (const toggle of [null, 'Lines by store']) {
      if (toggle) await page.getByRole('button', { name: toggle }).click();
      await drawnAtCardWidth(page);
      const size = await smallestChartText(page);
      expect(size, `chart text at ${width} px (${toggle ?? 'kinds'})`).toBeGreaterThanOrEqual(12);
      await legendClearOfPlot(page, `${width} px, ${toggle ?? 'kinds'}`);
    }
  });
}
