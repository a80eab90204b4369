// What a reader's browser pays for the toy: the page's weight, as a static
// host would send it gzipped, and how long after the navigation starts the
// first frame is drawn, in headless Chromium (WebGL 2 on SwiftShader) on
// this machine. It reports; it asserts nothing (timings are noisy: see
// docs/performance.md).
//
//   node web/report.mjs [--runs N] [--dist DIR] [--json]
//
// Weight: every file of the single-thread page (index.html, tidepool.js,
// tidepool.wasm) and of the threads page (index.html, tidepool-mt.*), raw
// and gzipped at level 9. First frame: N cold loads (a fresh browser
// context each, so nothing is cached), each timed from the navigation's
// start to the first frame the toy reports (stats().frame >= 1), with the
// first contentful paint (the loading state) beside it. The page is served
// by web/server.mjs without COOP/COEP, as a blog's iframe would be.
import fs from 'node:fs';
import path from 'node:path';
import zlib from 'node:zlib';
import { chromium } from 'playwright-core';
import { startServer } from './server.mjs';
import { buildDir, chromiumPath, webglArgs } from './tests/support.mjs';

function parseArgs(argv) {
  const opts = { runs: 5, dist: process.env.TIDEPOOL_DIST || path.join(buildDir, 'dist'), json: false };
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i];
    if (a === '--runs') opts.runs = Number(argv[++i]);
    else if (a === '--dist') opts.dist = argv[++i];
    else if (a === '--json') opts.json = true;
    else throw new Error(`unknown argument ${a} (usage: node web/report.mjs [--runs N] [--dist DIR] [--json])`);
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

async function firstFrames(dist, runs) {
  const server = await startServer({ root: dist, port: 0 });
  const browser = await chromium.launch({ executablePath: chromiumPath, args: webglArgs });
  const loads = [];
  try {
    for (let k = 0; k < runs; k++) {
      const context = await browser.newContext({ viewport: { width: 1280, height: 800 } });
      const page = await context.newPage();
      await page.goto(server.url, { waitUntil: 'commit' });
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
      loads.push({ firstFrameMs, paintMs });
      await context.close();
    }
  } finally {
    await browser.close();
    await server.close();
  }
  const sorted = loads.map((l) => l.firstFrameMs).sort((a, b) => a - b);
  return { loads, medianMs: sorted[Math.floor(sorted.length / 2)] };
}

const kb = (n) => (n / 1000).toFixed(1).padStart(7) + ' KB';

const opts = parseArgs(process.argv.slice(2));
const weight = weigh(opts.dist);
const timing = await firstFrames(opts.dist, opts.runs);
if (opts.json) {
  console.log(JSON.stringify({ dist: opts.dist, weight, firstFrame: timing }, null, 2));
} else {
  console.log(`page weight (${opts.dist}):`);
  console.log('  file                          raw        gzip -9');
  for (const [name, w] of Object.entries(weight.files)) console.log(`  ${name.padEnd(24)} ${kb(w.raw)}  ${kb(w.gzip)}`);
  for (const [page, t] of Object.entries(weight.totals))
    console.log(`  ${(page + ' page').padEnd(24)} ${kb(t.raw)}  ${kb(t.gzip)}`);
  console.log(`first frame after navigation start (${opts.runs} cold loads, headless Chromium, no COOP/COEP):`);
  timing.loads.forEach((l, k) =>
    console.log(`  load ${k + 1}: first frame ${l.firstFrameMs.toFixed(0)} ms, first paint ${l.paintMs === null ? '-' : l.paintMs.toFixed(0) + ' ms'}`),
  );
  console.log(`  median first frame: ${timing.medianMs.toFixed(0)} ms`);
}
