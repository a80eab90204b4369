// Browser tests of the threads build: the shell loads tidepool-mt.* (-pthread,
// shared memory) only on a cross-origin isolated page and tidepool.* anywhere
// else, and both compute the same water. Same setup as browser.test.mjs:
// playwright-core drives Debian's Chromium (WebGL 2 on SwiftShader), and
// web/server.mjs is started in-process, once with COOP/COEP and once without
// (and, for the service worker, once as a static host that serves it).
// TIDEPOOL_DIST overrides the folder (build/web/dist), CHROMIUM the browser.
//
//   node --test web/tests/threads.test.mjs          (scripts/test.sh runs this)
//
// Speed is not checked here: SwiftShader draws on the same two cores the
// simulation threads want (see scripts/bench-wasm.sh --threads for that).
import { describe, test, before } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { startServer } from '../server.mjs';
import { decodePng } from './png.mjs';
import { routeEmbedExample, shots, simulate, stats, watchPage, waterFraction, useBrowser, dist } from './support.mjs';

const FEW = 'particles=1500';
const LONG = 90_000;
// Small pages: nothing here depends on the page's size.
const VIEW = { width: 480, height: 300 };

// isolated: COOP/COEP (crossOriginIsolated, SharedArrayBuffer); plain: like
// an iframe on a blog.
const h = useBrowser({ servers: { isolated: { isolate: true }, plain: {} } });
const { closeAll } = h;

before(() => {
  for (const f of ['isolate.js', 'tidepool.js', 'tidepool.wasm', 'tidepool-mt.js', 'tidepool-mt.wasm', 'tidepool-mt.worker.js'])
    assert.ok(fs.existsSync(path.join(dist, f)), `${dist}/${f} is missing: run scripts/build-web.sh`);
});

// Opens a page on `server`; records console errors (the page's and its
// workers', where the threads run), requests, and requests that leave it.
async function openPage(server, query) {
  const context = await h.newContext({ viewport: VIEW });
  const page = await context.newPage();
  const log = watchPage(page, server.url);
  await page.goto(new URL(`/?${query}`, server.url).href);
  await page.waitForFunction(
    () => {
      const s = window.tidepool && window.tidepool.stats();
      return s && s.frame >= 5;
    },
    null,
    { timeout: LONG, polling: 100 },
  );
  return { page, log };
}

const built = (log) => (log.requests.includes('/tidepool-mt.wasm') ? 'tidepool-mt' : log.requests.includes('/tidepool.wasm') ? 'tidepool' : 'none');


describe('the threads build (tidepool-mt) and its fallback', { concurrency: 1 }, () => {
  test('cross-origin isolated: the -mt build runs on >= 2 threads and draws water', { timeout: LONG * 2 }, async (t) => {
    const { page, log } = await openPage(h.isolated, `scene=dam-break&paused=1&embed=1&${FEW}`);
    const s0 = await stats(page);
    const env = await page.evaluate(() => ({
      coi: window.crossOriginIsolated,
      sab: typeof SharedArrayBuffer,
      cores: navigator.hardwareConcurrency,
    }));
    const png = decodePng(await page.screenshot({ path: path.join(shots, 'threads-mt.png') }));
    // Water in the dam-break column (x 0..1, y 0..2 m) and in the empty right part of the tank.
    const w = { column: waterFraction(png, s0, 0.05, 0.05, 0.95, 1.95).fraction, empty: waterFraction(png, s0, 2.1, 0.1, 3.9, 1.9).fraction };
    assert.equal(await page.evaluate(() => window.tidepool.pause(false)), true);
    const s1 = await simulate(page, 0.3);
    t.diagnostic(
      `crossOriginIsolated ${env.coi}, SharedArrayBuffer ${env.sab}, hardwareConcurrency ${env.cores}; loaded ${built(log)}, ` +
        `${s1.threads} threads (${s1.threadsInUse} in use); water in the column ${(100 * w.column).toFixed(1)} %, in the empty tank ${(100 * w.empty).toFixed(2)} %; ` +
        `frames ${s0.frame} -> ${s1.frame}, time ${s0.time.toFixed(3)} -> ${s1.time.toFixed(3)} s, sim ${s1.simMs.toFixed(1)} ms/frame`,
    );
    assert.equal(env.coi, true);
    assert.equal(built(log), 'tidepool-mt');
    assert.ok(!log.requests.includes('/tidepool.wasm'), 'only the threads build is fetched');
    assert.ok(s1.threads >= 2, `threads ${s1.threads}`);
    // All of them, or one where one measured faster (src/threads/thread_choice.h).
    assert.ok(s1.threadsInUse === s1.threads || s1.threadsInUse === 1, `threads in use ${s1.threadsInUse}`);
    assert.ok(w.column > 0.6, `the column is water (${w.column})`);
    assert.ok(w.empty < 0.01, `the empty part is dry (${w.empty})`);
    assert.ok(s1.frame > s0.frame + 3, 'frames advance');
    assert.ok(s1.particles > 1000);
    assert.deepEqual(log.errors, []);
    assert.deepEqual(log.outside, []);
    await closeAll();
  });

  test('not isolated (an iframe on a blog): the single-threaded build, 1 thread', { timeout: LONG * 2 }, async (t) => {
    const { page, log } = await openPage(h.plain, FEW);
    const a = await stats(page);
    const b = await simulate(page, 0.2);
    const coi = await page.evaluate(() => window.crossOriginIsolated);
    t.diagnostic(`crossOriginIsolated ${coi}; loaded ${built(log)}, ${b.threads} thread; frames ${a.frame} -> ${b.frame}`);
    assert.equal(coi, false);
    assert.equal(built(log), 'tidepool');
    assert.ok(!log.requests.some((p) => p.startsWith('/tidepool-mt')), 'nothing of the threads build is fetched');
    assert.equal(b.threads, 1);
    assert.equal(b.threadsInUse, 1);
    assert.ok(b.frame > a.frame);
    assert.deepEqual(log.errors, []);
    await closeAll();
  });

  test('a static host without headers: the service worker isolates the page, which reloads once into the threads build', { timeout: LONG * 3 }, async (t) => {
    // Like GitHub Pages: every file of dist/, no COOP/COEP.
    const host = await startServer({ root: dist, port: 0, serviceWorker: true });
    try {
      const context = await h.newContext({ viewport: VIEW });
      // Loads `query` in a new page of the context; counts its navigations
      // (the worker's reload is one), and waits through them until the toy
      // has drawn 5 frames.
      const load = async (query) => {
        const page = await context.newPage();
        const log = watchPage(page, host.url);
        let navigations = 0;
        page.on('framenavigated', (f) => { if (f === page.mainFrame()) navigations++; });
        await page.goto(new URL(`/?${query}`, host.url).href);
        const deadline = Date.now() + LONG;
        for (;;) {
          try {
            await page.waitForFunction(() => window.tidepool && window.tidepool.stats() && window.tidepool.stats().frame >= 5,
              null, { timeout: Math.max(1, deadline - Date.now()), polling: 100 });
            break;
          } catch (e) {
            // The reload destroys the page being waited on: wait on the new one.
            if (!/destroyed|navigat/i.test(e.message) || Date.now() >= deadline) throw e;
          }
        }
        const s = await stats(page);
        const coi = await page.evaluate(() => window.crossOriginIsolated);
        return { page, log, s, coi, navigations };
      };
      const first = await load(FEW);
      const again = await load(FEW);  // the worker is installed now
      const one = await load(`threads=1&${FEW}`);
      for (const [name, r] of Object.entries({ first, again, 'threads=1': one }))
        t.diagnostic(`${name}: crossOriginIsolated ${r.coi}, ${r.navigations} navigation(s), loaded ${built(r.log)}, ` +
          `${r.s && r.s.threads} threads, frame ${r.s && r.s.frame}`);
      assert.equal(first.coi, true, 'isolated by the worker');
      assert.equal(first.navigations, 2, 'the load and one reload');
      assert.equal(built(first.log), 'tidepool-mt');
      assert.ok(!first.log.requests.includes('/tidepool.wasm'), 'nothing of the single-threaded build before the reload');
      assert.ok(first.s.threads >= 2, `threads ${first.s.threads}`);
      assert.equal(again.coi, true);
      assert.equal(again.navigations, 1, 'a later visit loads isolated at once');
      assert.equal(built(again.log), 'tidepool-mt');
      assert.equal(built(one.log), 'tidepool', '?threads=1 still picks one thread');
      assert.equal(one.s.threads, 1);
      for (const r of [first, again, one]) {
        assert.ok(r.s.frame >= 5);
        assert.deepEqual(r.log.errors, []);
        assert.deepEqual(r.log.outside, []);
      }
    } finally {
      await closeAll();
      await host.close();
    }
  });

  test('the embed example works cross-origin isolated too (scripts/serve.sh serves it so)', { timeout: LONG * 2 }, async (t) => {
    // The example page and its iframe come from one origin, so both are
    // isolated, and the toy in the iframe runs the threads build.
    const context = await h.newContext({ viewport: { width: 1000, height: 900 } });
    const page = await context.newPage();
    const errors = [];
    const requests = [];
    page.on('console', (m) => { if (m.type() === 'error') errors.push(m.text()); });
    page.on('pageerror', (e) => errors.push(`pageerror: ${e.message}`));
    page.on('request', (r) => requests.push(new URL(r.url()).pathname));
    // The example's toy with its count fixed (and the cheaper particle view):
    // what is checked here is where it runs, not how many particles it holds.
    await routeEmbedExample(page, `${FEW}&color=water`);
    await page.goto(new URL('/embed.html', h.isolated.url).href);
    const frame = page.frames().find((f) => f.url().includes('embed=1'));
    assert.ok(frame, 'the embed page has the toy in an iframe');
    await frame.waitForFunction(() => window.tidepool && window.tidepool.stats() && window.tidepool.stats().frame >= 3,
      null, { timeout: LONG, polling: 100 });
    await page.click('#pause');
    await frame.waitForFunction(() => window.tidepool.stats().paused === true, null, { timeout: LONG });
    await page.click('#resume');
    await frame.waitForFunction(() => window.tidepool.stats().paused === false, null, { timeout: LONG });
    // The page's stats line is filled from {type: 'stats'} replies.
    await page.waitForFunction(() => /^frame \d+/.test(document.getElementById('stats').textContent), null, { timeout: LONG });
    const s = await frame.evaluate(() => window.tidepool.stats());
    assert.equal(s.quality.auto, false, 'the toy runs at a fixed count');
    const coi = await page.evaluate(() => window.crossOriginIsolated);
    const frameCoi = await frame.evaluate(() => window.crossOriginIsolated);
    t.diagnostic(`page isolated ${coi}, iframe isolated ${frameCoi}, ${s.threads} threads, ` +
      `stats line "${await page.locator('#stats').textContent()}"`);
    assert.equal(frameCoi, true);
    assert.ok(requests.includes('/tidepool-mt.wasm'));
    assert.ok(s.threads >= 2);
    assert.deepEqual(errors, []);
    await closeAll();
  });

  test('the same state hash after the same 60 frames, threaded or not; ?threads=1 picks the single-threaded build on an isolated page too', { timeout: LONG * 4 }, async (t) => {
    const query = `scene=drop&paused=1&embed=1&${FEW}`;
    const runs = [
      { name: 'tidepool-mt (isolated)', server: h.isolated, query },
      { name: 'tidepool (not isolated)', server: h.plain, query },
      { name: 'tidepool (isolated, threads=1)', server: h.isolated, query: `${query}&threads=1` },
    ];
    const seen = [];
    for (const r of runs) {
      const { page, log } = await openPage(r.server, r.query);
      const before = await page.evaluate(() => window.tidepool.hash());
      const t0 = Date.now();
      assert.equal(await page.evaluate(() => window.tidepool.advance(60)), true);
      const ms = Date.now() - t0;
      const s = await stats(page);
      const hash = await page.evaluate(() => window.tidepool.hash());
      seen.push({ ...r, before, hash, threads: s.threads, time: s.time, built: built(log), warnings: log.warnings, ms });
      assert.deepEqual(log.errors, []);
      await closeAll();
    }
    for (const r of seen)
      t.diagnostic(`${r.name}: ${r.built}, ${r.threads} thread(s), t = ${r.time.toFixed(4)} s, hash ${r.before} -> ${r.hash} (${r.ms} ms for 60 frames)`);
    assert.equal(seen[0].built, 'tidepool-mt');
    assert.ok(seen[0].threads >= 2);
    assert.equal(seen[1].built, 'tidepool');
    assert.equal(seen[2].built, 'tidepool', '?threads=1 on an isolated page: the single-threaded build');
    assert.equal(seen[2].threads, 1);
    assert.deepEqual(seen[2].warnings, [], '?threads=1 is a valid value');
    // 1 s of simulated time, less if the substep cap slowed a frame down.
    assert.ok(seen[0].time > 0.5 && seen[0].time < 1.0 + 1e-6, `60 frames simulated (${seen[0].time} s)`);
    assert.notEqual(seen[0].before, seen[0].hash, 'the water moved');
    for (const r of seen.slice(1)) {
      assert.equal(r.before, seen[0].before, `${r.name}: same start`);
      assert.equal(r.time, seen[0].time, `${r.name}: same simulated time`);
      assert.equal(r.hash, seen[0].hash, `${r.name}: same state after 60 frames`);
    }
  });
});
