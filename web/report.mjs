// What a reader's browser pays for the toy: the page's weight, as a static
// host would send it gzipped, and how long after the navigation starts the
// first frame is drawn, in headless Chromium (WebGL 2 on SwiftShader) on
// this machine. It reports; it asserts nothing (timings are noisy: see
// docs/performance.md).
//
//   node web/report.mjs [--runs N] [--dist DIR] [--against DIR] [--json]
//
// Weight: every file of the single-thread page (index.html, tidepool.js,
// tidepool.wasm) and of the threads page (index.html, tidepool-mt.*), raw
// and gzipped at level 9. First frame: N cold loads (a fresh browser
// context each, so nothing is cached), each timed from the navigation's
// start to the first frame the toy reports (stats().frame >= 1), with the
// first contentful paint (the loading state) beside it. The page is served
// by web/server.mjs without COOP/COEP, as a blog's iframe would be.
//
// --against DIR times a second build of the page (another dist folder)
// too, its loads taking turns with this one's, so that the machine's ups
// and downs fall on both alike: compare the two medians, not either with
// a number from another run.
import fs from 'node:fs';
import path from 'node:path';
import zlib from 'node:zlib';
import { chromium } from 'playwright-core';
import { startServer } from './server.mjs';
import { buildDir, chromiumPath, webglArgs } from './tests/support.mjs';

function parseArgs(argv) {
  const opts = { runs: 5, dist: process.env.TIDEPOOL_DIST || path.join(buildDir, 'dist'), against: null, json: false };
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i];
    if (a === '--runs') opts.runs = Number(argv[++i]);
    else if (a === '--dist') opts.dist = argv[++i];
    else if (a === '--against') opts.against = path.resolve(argv[++i]);
    else if (a === '--json') opts.json = true;
    else throw new Error(`unknown argument ${a} (usage: node web/report.mjs [--runs N] [--dist DIR] [--against DIR] [--json])`);
  }
  if (!(Number.isInteger(opts.runs) && opts.runs >= 1 && opts.runs <= 50)) throw new Error('--runs: 1..50');
  opts.dist = path.resolve(opts.dist);
  return opts;
}

const pages = {
  'single thread': ['index.html', 'tidepool.js', 'tidepool.wasm'],
  threads: ['index.html', 'tidepool-mt.js', 'tidepool-mt.wasm', 'tidepool-mt.worker.js'],
};

function weigh(dist) {
  const files = {};
  for (const name of new Set(Object.values(pages).flat())) {
    const file = path.join(dist, name);
    if (!fs.existsSync(file)) throw new Error(`${file} is missing: run scripts/build-web.sh`);
    const bytes = fs.readFileSync(file);
    files[name] = { raw: bytes.length, gzip: zlib.gzipSync(bytes, { level: 9 }).length };
  }
  const totals = {};
  for (const [page, names] of Object.entries(pages)) {
    totals[page] = names.reduce((t, n) => ({ raw: t.raw + files[n].raw, gzip: t.gzip + files[n].gzip }), { raw: 0, gzip: 0 });
  }
  return { files, totals };
}

// Cold loads of each folder in `dists`, taking turns: {loads, medianMs} each.
async function firstFrames(dists, runs) {
  const servers = [];
  for (const root of dists) servers.push(await startServer({ root, port: 0 }));
  const browser = await chromium.launch({ executablePath: chromiumPath, args: webglArgs });
  const loads = dists.map(() => []);
  try {
    for (let k = 0; k < runs; k++) {
      for (let d = 0; d < dists.length; d++) {
        const context = await browser.newContext({ viewport: { width: 1280, height: 800 } });
        const page = await context.newPage();
        await page.goto(servers[d].url, { waitUntil: 'commit' });
        // Polled on every animation frame, inside the page: performance.now()
        // counts from the navigation's start.
        const firstFrameMs = await page.evaluate(
          () =>
            new Promise((resolve) => {
              const poll = () => {
                const s = window.tidepool && window.tidepool.stats ? window.tidepool.stats() : null;
                if (s && s.frame >= 1) resolve(performance.now());
                else requestAnimationFrame(poll);
              };
              poll();
            }),
        );
        const paintMs = await page.evaluate(() => {
          const p = performance.getEntriesByName('first-contentful-paint')[0];
          return p ? p.startTime : null;
        });
        loads[d].push({ firstFrameMs, paintMs });
        await context.close();
      }
    }
  } finally {
    await browser.close();
    for (const server of servers) await server.close();
  }
  return loads.map((l) => {
    const sorted = l.map((x) => x.firstFrameMs).sort((a, b) => a - b);
    return { loads: l, medianMs: sorted[Math.floor(sorted.length / 2)] };
  });
}

const kb = (n) => (n / 1000).toFixed(1).padStart(7) + ' KB';

const opts = parseArgs(process.argv.slice(2));
const weight = weigh(opts.dist);
const dists = opts.against ? [opts.dist, opts.against] : [opts.dist];
const timings = await firstFrames(dists, opts.runs);
if (opts.json) {
  const out = { dist: opts.dist, weight, firstFrame: timings[0] };
  if (opts.against) out.against = { dist: opts.against, firstFrame: timings[1] };
  console.log(JSON.stringify(out, null, 2));
} else {
  console.log(`page weight (${opts.dist}):`);
  console.log('  file                          raw        gzip -9');
  for (const [name, w] of Object.entries(weight.files)) console.log(`  ${name.padEnd(24)} ${kb(w.raw)}  ${kb(w.gzip)}`);
  for (const [page, t] of Object.entries(weight.totals))
    console.log(`  ${(page + ' page').padEnd(24)} ${kb(t.raw)}  ${kb(t.gzip)}`);
  dists.forEach((dist, d) => {
    const timing = timings[d];
    console.log(`first frame after navigation start (${opts.runs} cold loads, headless Chromium, no COOP/COEP)${opts.against ? ` of ${dist}` : ''}:`);
    timing.loads.forEach((l, k) =>
      console.log(`  load ${k + 1}: first frame ${l.firstFrameMs.toFixed(0)} ms, first paint ${l.paintMs === null ? '-' : l.paintMs.toFixed(0) + ' ms'}`),
    );
    console.log(`  median first frame: ${timing.medianMs.toFixed(0)} ms`);
  });
  if (opts.against)
    console.log(`  ratio of the medians (${opts.dist} over ${opts.against}): ${(timings[0].medianMs / timings[1].medianMs).toFixed(2)}`);
}
