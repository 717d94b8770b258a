// Specs that start the real binary themselves (a fresh data folder, flags
// of their own) start and stop it here.
import { spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';

const binary = process.env.WHOCOMES_BIN ?? '../target/debug/whocomes';
const siteRoot = process.env.WHOCOMES_SITE_ROOT ?? '../target/site';

/** Starts the real binary on `port` over `dataDir` and waits until it serves. */
export async function serveOn(port: number, dataDir: string, extra: string[]): Promise<ChildProcess> {
  const base = `http://127.0.0.1:${port}`;
  const child = spawn(
    binary,
    ['serve', '--addr', `127.0.0.1:${port}`, '--site-root', siteRoot, '--data-dir', dataDir, '--flush-ms', '100', ...extra],
    { env: { ...process.env, WHOCOMES_LOG: 'warn' }, stdio: ['ignore', 'inherit', 'inherit'] },
  );
  // A cold debug build compresses the site's files at start: allow two minutes.
  for (let attempt = 0; attempt < 1_200; attempt++) {
    if (child.exitCode !== null) throw new Error(`whocomes exited with ${child.exitCode}`);
    try {
      if ((await fetch(`${base}/about`)).ok) return child;
    } catch {
      // Not listening yet.
    }
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  child.kill('SIGTERM');
  throw new Error('whocomes did not start serving within 120 s');
}

/** Waits until the demo's days at `base` are summed as the stores hold
 * them (a cold debug build sums 120 days of two stores slowly), so every
 * figure read after is final. */
export async function demoSummed(base: string) {
  for (let attempt = 0; ; attempt++) {
    const answer = await fetch(`${base}/admin/api/overview`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: 'days=30',
    });
    const overview = answer.ok ? await answer.json() : undefined;
    if (overview?.current && overview.totals.visitors.people > 0) return;
    if (attempt > 400) throw new Error('the demo was never summed');
    await new Promise((resolve) => setTimeout(resolve, 500));
  }
}

/** Stops it with SIGTERM and waits for it to exit. */
export async function stop(child: ChildProcess) {
  if (child.exitCode !== null) return;
  const exited = once(child, 'exit');
  child.kill('SIGTERM');
  await exited;
}
