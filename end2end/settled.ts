// Waiting for the writer by what it waits for. Every server says, in its
// public overview, how many hits and marks (a page's own files fetched) it
// has queued and how many it has written, and whether the tab's days are
// summed as the stores hold them now. A test that counts waits until each
// server it reads has written everything it counted, then until the tab's
// figures are current: no guess at how long a slow machine takes, and no
// other test's visitor half-written when a figure is read.
import { expect, type APIRequestContext } from '@playwright/test';

export type Kinds = { people: number; bots: number; self_reads: number };

export type Overview = {
  days: { day: string; kinds: Kinds }[];
  store_lines: { store: string; requests: number[] }[];
  top_paths: { path: string; requests: number }[];
  writer: { queued: number; written: number; lost: number; marks_queued: number; marks_done: number; settled: boolean };
  current: boolean;
};

/** The public overview of the server at `base` over the last `days` days. */
export async function overview(request: APIRequestContext, base: string, days = 7): Promise<Overview> {
  const answer = await request.post(`${base}/admin/api/overview`, { form: { days: String(days) } });
  expect(answer.ok(), `the overview of ${base} answers`).toBe(true);
  return (await answer.json()) as Overview;
}

/**
 * Waits until the writer of every server in `writers` has written what it
 * counted, then until `base`'s overview is current, and returns it. The
 * timeout only guards against a writer that never catches up (a real
 * failure): what is waited for is exact.
 */
export async function settled(
  request: APIRequestContext,
  base: string,
  writers: string[] = [base],
  days = 7,
): Promise<Overview> {
  for (const server of writers) {
    await expect
      .poll(async () => (await overview(request, server, days)).writer.settled, {
        message: `the writer of ${server} writes what it counted`,
        timeout: 60_000,
      })
      .toBe(true);
  }
  let last: Overview | undefined;
  await expect
    .poll(
      async () => {
        last = await overview(request, base, days);
        return last.current;
      },
      { message: `the overview of ${base} is summed as the stores hold it`, timeout: 60_000 },
    )
    .toBe(true);
  return last as Overview;
}

/** Today's visitor-days by kind (the overview's last day). */
export function today(view: Overview): Kinds {
  return view.days[view.days.length - 1].kinds;
}

/** Today's requests of `store` (its line's last day). */
export function storeToday(view: Overview, store: string): number {
  const line = view.store_lines.find((l) => l.store === store);
  return line ? line.requests[line.requests.length - 1] : 0;
}
