// A person's browser for the e2e: Debian's Chromium in a window (on the
// virtual screen scripts/test runs the e2e on, `xvfb-run`), as a person runs
// it — its own agent and its own client hints, no agent put on. Headless
// Chromium names itself in its agent (a bot's word), and a context with
// `userAgent` set sends hints that contradict that agent: both are tools, and
// evidence.spec counts the second as one (SPEC §3).
import { test as base, chromium, type Browser } from '@playwright/test';

/** Chromium's flags for this closed machine (it otherwise tries Google's
 * hosts at every start); none of them changes what it sends a site. */
export const chromiumArgs = [
  '--no-sandbox',
  '--disable-gpu',
  '--disable-quic',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
];
export const chromiumPath = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';

/** `test` with `person`: a windowed Chromium, one per worker. */
export const test = base.extend<object, { person: Browser }>({
  person: [
    async ({}, use) => {
      if (!process.env.DISPLAY) {
        throw new Error("a person's browser needs a screen: run the e2e under xvfb-run (scripts/test does)");
      }
      const browser = await chromium.launch({ headless: false, executablePath: chromiumPath, args: chromiumArgs });
      await use(browser);
      await browser.close();
    },
    { scope: 'worker' },
  ],
});
