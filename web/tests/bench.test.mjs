// Browser test of the bench page (web/site/bench.html): `tidepool bench`
// compiled for the browser runs in a Web Worker and its lines reach the page
// while it runs. Same setup as browser.test.mjs: playwright-core drives
// Debian's Chromium; the server is web/server.mjs, started in-process.
// TIDEPOOL_BENCH overrides the folder of tidepool-cli.js/.wasm and the
// threads build's tidepool-cli-mt.* (build/web/bench, built by
// scripts/build-web.sh), CHROMIUM the browser.
//
//   node --test web/tests/bench.test.mjs          (scripts/test.sh runs this)
import { describe, test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { chromium } from 'playwright-core';
import { startServer } from '../server.mjs';
import { buildDir, chromiumPath, quietArgs, watchPage } from './support.mjs';

const benchDir = path.resolve(process.env.TIDEPOOL_BENCH || path.join(buildDir, 'bench'));
// --quick on two shared cores takes seconds natively; allow for a slow day.
const LONG = 180_000;
// --quick's sizes: a row for each, per solver, in this order.
const QUICK_SIZES = [1000, 4000];

// `a` and `b` agree within `rel` (the printed numbers are rounded).
const near = (a, b, rel) => Math.abs(a - b) <= rel * Math.max(Math.abs(a), Math.abs(b));

// A row's particles are its requested size (the dam break's column holds
// the lattice's count nearest it), and its throughput is its count over
// its time per step: the two numbers a reader compares rows by.
function checkRow(r, size) {
  assert.ok(Number.isInteger(r.particles) && near(r.particles, size, 0.1), `${r.solver}: ${r.particles} particles for the size ${size}`);
  assert.ok(Number.isFinite(r.ms_per_step) && r.ms_per_step > 0, `${r.solver} ${r.particles}: ms per step ${r.ms_per_step}`);
  // ms_per_step is printed to 1e-4 ms.
  assert.ok(near(r.particle_steps_per_s, r.particles * 1000 / r.ms_per_step, 0.005 + 1e-4 / r.ms_per_step),
    `${r.solver} ${r.particles}: ${r.particle_steps_per_s} particle-steps/s is ${r.particles} particles over ${r.ms_per_step} ms a step`);
}

let server;
let isolated;  // the same, cross-origin isolated (COOP/COEP), for --threads
let browser;

before(async () => {
  for (const file of ['tidepool-cli.wasm', 'tidepool-cli-mt.wasm', 'tidepool-cli-mt.worker.js'])
    assert.ok(fs.existsSync(path.join(benchDir, file)), `${benchDir}/${file} is missing: run scripts/build-web.sh`);
  // The toy's dist/ is not needed by this page; the server only requires a root.
  server = await startServer({ benchRoot: benchDir, port: 0 });
  isolated = await startServer({ benchRoot: benchDir, port: 0, isolate: true });
  browser = await chromium.launch({ executablePath: chromiumPath, args: quietArgs });
});

after(async () => {
  if (browser) await browser.close();
  if (server) await server.close();
  if (isolated) await isolated.close();
});

// Opens the page and records errors from the page and its worker, and any
// request that leaves the server (the page must work offline).
async function openBench(query, from = server) {
  const context = await browser.newContext();
  const page = await context.newPage();
  const log = watchPage(page, from.url);
  await page.goto(new URL(`bench.html?${query}`, from.url).href);
  return { context, page, log };
}

async function finished(page) {
  await page.waitForFunction(() => window.tidepoolBench && window.tidepoolBench.done, null,
    { timeout: LONG, polling: 100 });
  return page.evaluate(() => window.tidepoolBench);
}

describe('bench page', () => {
  test('runs tidepool bench --quick --json in a worker and shows each line as it comes', { timeout: LONG + 30_000 }, async (t) => {
    const { context, page, log } = await openBench(new URLSearchParams({ args: '--quick --json' }).toString());
    // The page answers while the bench runs (it runs in the worker).
    await page.waitForFunction(() => window.tidepoolBench.startedAt > 0, null, { timeout: LONG });
    const t0 = Date.now();
    const busy = await page.evaluate(() => !window.tidepoolBench.done);
    const answerMs = Date.now() - t0;
    const s = await finished(page);
    const rows = await page.locator('#results tbody tr').count();
    const capacity = await page.locator('#capacity').textContent();
    const status = await page.locator('#status').textContent();
    const total = (s.finishedAt - s.startedAt) / 1000;
    const live = (s.finishedAt - s.firstResultAt) / 1000;
    t.diagnostic(`${s.results.length} results, ${rows} table rows in ${total.toFixed(1)} s; first result ` +
      `${live.toFixed(2)} s before the end; page answered in ${answerMs} ms while busy: ${busy}; ` +
      s.results.map((r) => `${r.solver} ${r.particles}: ${(r.particle_steps_per_s / 1e6).toFixed(3)} M p-steps/s`).join(', ') +
      `; summary: ${JSON.stringify(s.summary)}; status "${status}"`);
    assert.equal(s.exitCode, 0, `exit status (stderr: ${s.stderr.join(' | ')})`);
    assert.equal(s.error, null);
    assert.deepEqual(s.args, ['--quick', '--json']);
    // --quick: both solvers at 1000 and 4000 particles, one row each.
    assert.deepEqual(s.results.map((r) => r.solver), ['dfsph', 'dfsph', 'muller2003', 'muller2003']);
    s.results.forEach((r, k) => checkRow(r, QUICK_SIZES[k % 2]));
    // Both solvers get the same water at a size.
    assert.deepEqual(s.results.slice(0, 2).map((r) => r.particles), s.results.slice(2).map((r) => r.particles));
    for (const r of s.results) {
      // DFSPH's solves make passes over its lists, Müller has none.
      assert.equal(r.solver_passes_per_step > 0, r.solver === 'dfsph', `passes ${r.solver_passes_per_step}`);
      assert.equal(r.pressure_ns_per_particle_pass > 0, r.solver === 'dfsph');
    }
    // The table shows each row's count and throughput.
    assert.equal(rows, 4);
    const cells = await page.locator('#results tbody tr').evaluateAll((trs) => trs.map((tr) => [tr.cells[1].textContent, tr.cells[3].textContent]));
    assert.deepEqual(cells, s.results.map((r) => [String(r.particles), r.particle_steps_per_s.toExponential(3)]));
    // Every line of stdout is JSON, the last one the summary.
    for (const line of s.lines) JSON.parse(line);
    assert.ok(s.summary && 'capacity_60fps' in s.summary, 'the final summary line arrived');
    assert.ok(s.summary.reference_particle_steps_per_s > 0 && s.summary.ratio > 0);
    // The spreads are the rows' own: slowest size over fastest, per solver.
    const spread = (values) => Math.max(...values) / Math.min(...values);
    for (const solver of ['dfsph', 'muller2003']) {
      const mine = s.results.filter((r) => r.solver === solver);
      assert.ok(near(s.summary.cost_spread[solver], spread(mine.map((r) => r.particle_steps_per_s)), 0.01),
        `${solver}: cost spread ${s.summary.cost_spread[solver]} from the rows`);
    }
    const dfsph = s.results.filter((r) => r.solver === 'dfsph').map((r) => r.pressure_ns_per_particle_pass);
    assert.ok(near(s.summary.pass_cost_spread.dfsph, spread(dfsph), 0.01), `pass cost spread ${s.summary.pass_cost_spread.dfsph} from the rows`);
    assert.ok(!('muller2003' in s.summary.pass_cost_spread));
    assert.match(capacity, /cost spread dfsph: [0-9.]+x per particle-step, [0-9.]+x per particle-pass/);
    assert.match(capacity, /reference at 1000 particles/);
    assert.match(status, /^done in/);
    // Live: the first result reached the page before the program ended.
    assert.ok(s.firstResultAt < s.finishedAt, 'results arrive while the bench runs');
    assert.deepEqual(s.stderr, []);
    assert.deepEqual(log.errors, []);
    assert.deepEqual(log.outside, []);
    await context.close();
  });

  test('query parameters build the argument list; the text table shows as the CLI prints it', { timeout: LONG + 30_000 }, async (t) => {
    // The capacity search takes minutes (six simulated seconds per size
    // tried), too long for CI: the text table and its reference line only.
    // --quick keeps it short (and sets the sizes itself).
    const { context, page, log } = await openBench('quick=1&sizes=1000&solver=dfsph&capacity=0');
    const s = await finished(page);
    const out = await page.locator('#out').textContent();
    t.diagnostic(`args ${JSON.stringify(s.args)}; output: ${out.trim().split('\n').join(' / ')}`);
    assert.deepEqual(s.args, ['--quick', '--sizes', '1000', '--solver', 'dfsph', '--no-capacity']);
    assert.equal(s.exitCode, 0);
    assert.match(out, /^solver\s+particles\s+nbrs\s+p-steps\/s/m);
    assert.equal(s.results.length, 2);
    for (const r of s.results) assert.match(r, /^dfsph\s+\d+/);
    assert.match(s.summary, /^cost spread dfsph\s+[0-9.]+x per particle-step/m);
    assert.match(s.summary, /^reference \(seed 000 algorithm/m);
    assert.deepEqual(log.errors, []);
    await context.close();
  });

  test('threads=2 on a cross-origin isolated page: the -pthread build, each row timed against one thread', { timeout: LONG + 30_000 }, async (t) => {
    const { context, page, log } = await openBench('quick=1&sizes=1000&solver=muller2003&capacity=0&json=1&threads=2', isolated);
    const s = await finished(page);
    const speedups = await page.locator('#results tbody tr td:nth-last-child(2)').allTextContents();
    const copies = await page.locator('#results tbody tr td:last-child').allTextContents();
    t.diagnostic(`args ${JSON.stringify(s.args)}; ` +
      s.results.map((r) => `${r.solver} ${r.particles}: ${(r.particle_steps_per_s / 1e6).toFixed(3)} M p-steps/s, ` +
        `${r.speedup_vs_1_thread}x vs 1 thread, copies at once ${r.copies_at_once_vs_1_thread}x`).join(', ') + `; stderr ${JSON.stringify(s.stderr)}`);
    assert.equal(s.exitCode, 0, `exit status (stderr: ${s.stderr.join(' | ')})`);
    assert.deepEqual(s.args, ['--quick', '--sizes', '1000', '--solver', 'muller2003', '--no-capacity', '--json', '--threads', '2']);
    // --quick's sizes (they replace --sizes), each timed on two threads.
    assert.deepEqual(s.results.map((r) => r.solver), ['muller2003', 'muller2003']);
    s.results.forEach((r, k) => checkRow(r, QUICK_SIZES[k]));
    for (const r of s.results) {
      assert.equal(r.threads, 2, 'the program ran with two threads');
      // Ratios of the same frames' times on one thread and on two: finite,
      // positive, and nowhere near ten times over (a time passed off as a
      // ratio would be).
      for (const [what, x] of [['speedup', r.speedup_vs_1_thread], ['copies at once', r.copies_at_once_vs_1_thread]])
        assert.ok(Number.isFinite(x) && x > 0 && x < 10, `${r.particles} particles: ${what} ${x}x`);
    }
    // The table shows them as the program printed them.
    assert.deepEqual(speedups, s.results.map((r) => `${r.speedup_vs_1_thread.toFixed(2)}x`));
    assert.deepEqual(copies, s.results.map((r) => `${r.copies_at_once_vs_1_thread.toFixed(2)}x`));
    assert.deepEqual(log.errors, []);
    assert.deepEqual(log.outside, []);
    await context.close();
  });

  test('more threads than the build made workers for: the program says so, exit status 2', { timeout: LONG }, async (t) => {
    const { context, page, log } = await openBench('quick=1&threads=9', isolated);
    const s = await finished(page);
    t.diagnostic(`exit ${s.exitCode}; stderr ${JSON.stringify(s.stderr)}`);
    assert.equal(s.exitCode, 2);
    assert.ok(s.stderr.some((l) => l.includes('--threads 9: must be in [1, 8]')), 'stderr names the limit');
    assert.deepEqual(log.errors, []);
    await context.close();
  });

  test('threads=2 on a page that is not cross-origin isolated: it says so and starts nothing', { timeout: LONG }, async (t) => {
    const { context, page, log } = await openBench('quick=1&threads=2');
    const s = await finished(page);
    const status = await page.locator('#status').textContent();
    t.diagnostic(`status "${status}"`);
    assert.equal(s.error, 'not cross-origin isolated');
    assert.equal(s.startedAt, 0, 'no bench started');
    assert.match(status, /cross-origin isolated/);
    assert.deepEqual(log.errors, []);
    await context.close();
  });

  test('bad arguments: the program says what is wrong, exit status 2, nothing injected', { timeout: LONG }, async (t) => {
    const { context, page, log } = await openBench(new URLSearchParams({ args: '--sizes <b>x</b>', colour: '1' }).toString());
    const s = await finished(page);
    const status = await page.locator('#status').textContent();
    t.diagnostic(`exit ${s.exitCode}; stderr ${JSON.stringify(s.stderr)}; status "${status}"; warnings ${JSON.stringify(log.warnings)}`);
    assert.equal(s.exitCode, 2);
    assert.ok(s.stderr.some((l) => l.includes('--sizes')), 'stderr names the argument');
    assert.match(status, /exited with status 2/);
    assert.equal(await page.locator('#out b').count(), 0, 'output is text, never markup');
    assert.ok(log.warnings.some((w) => w.includes('colour')), 'an unknown query parameter is named in a warning');
    assert.deepEqual(log.errors, []);
    await context.close();
  });
});
