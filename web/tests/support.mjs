// What the browser tests share: how Chromium is launched with the toy's
// servers around it, what a page is watched for, and how the toy's stats
// and pixels are read.
import { before, after } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { chromium } from 'playwright-core';
import { startServer } from '../server.mjs';

const here = path.dirname(fileURLToPath(import.meta.url));
export const buildDir = path.join(here, '..', '..', 'build', 'web');
// The toy's build (TIDEPOOL_DIST overrides it), and where screenshots for
// people to look at go.
export const dist = path.resolve(process.env.TIDEPOOL_DIST || path.join(buildDir, 'dist'));
export const shots = path.join(here, '..', 'screenshots');
export const chromiumPath = process.env.CHROMIUM || '/usr/bin/chromium';

// None of Chromium's own network chatter (the machines are offline; it would
// only add noise).
export const quietArgs = [
  '--no-sandbox',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
  '--disable-quic',
];
// Software WebGL 2 for the toy's pages.
export const webglArgs = [...quietArgs, '--use-angle=swiftshader', '--enable-unsafe-swiftshader'];

// A test file's Chromium and the servers its pages come from, started
// before its tests and closed after them. `servers` names each server and
// its startServer() options beyond the toy's build and a free port; each
// is then h[name] ({url, close()}). Contexts made with h.newContext() are
// closed by h.closeAll(), which each test calls at its end.
export function useBrowser({ servers = { server: {} }, args = webglArgs } = {}) {
  const h = { browser: null, open: [] };
  before(async () => {
    assert.ok(fs.existsSync(path.join(dist, 'index.html')), `${dist}/index.html is missing: run scripts/build-web.sh`);
    for (const [name, options] of Object.entries(servers)) h[name] = await startServer({ root: dist, port: 0, ...options });
    h.browser = await chromium.launch({ executablePath: chromiumPath, args });
    fs.mkdirSync(shots, { recursive: true });
  });
  after(async () => {
    if (h.browser) await h.browser.close();
    for (const name of Object.keys(servers)) if (h[name]) await h[name].close();
  });
  h.newContext = async (options) => {
    const context = await h.browser.newContext(options);
    h.open.push(context);
    return context;
  };
  h.closeAll = async () => {
    while (h.open.length) await h.open.pop().close().catch(() => {});
  };
  return h;
}

// Records everything on `page` that would make a person frown: console
// errors and warnings (the page's and its workers', where the threads build
// and the bench run), uncaught errors, dialogs, every request path, and
// requests that leave `base` (the pages must work offline).
// The test server answers 404 for the page's service worker unless asked
// to serve it (server.mjs says why); Chromium reports that 404 itself.
const hiddenWorker = 'A bad HTTP response code (404) was received when fetching the script.';
export function watchPage(page, base) {
  const log = { errors: [], warnings: [], requests: [], outside: [] };
  const onConsole = (m) => {
    if (m.type() === 'error' && m.text() !== hiddenWorker) log.errors.push(m.text());
    else if (m.type() === 'warning') log.warnings.push(m.text());
  };
  page.on('console', onConsole);
  page.on('worker', (w) => w.on('console', onConsole));
  page.on('pageerror', (e) => log.errors.push(`pageerror: ${e.message}`));
  page.on('dialog', (d) => {
    log.errors.push(`dialog: ${d.message()}`);
    d.dismiss().catch(() => {});
  });
  page.on('request', (r) => {
    const u = r.url();
    log.requests.push(new URL(u).pathname);
    if (!u.startsWith(base) && !u.startsWith('data:')) log.outside.push(u);
  });
  return log;
}

export const stats = (target) => target.evaluate(() => window.tidepool.stats());

// Simulated time must pass (frames alone do not move water).
export async function simulate(target, seconds, timeout = 90_000) {
  const t0 = (await stats(target)).time;
  try {
    await target.waitForFunction((t) => window.tidepool.stats().time >= t, t0 + seconds, { timeout, polling: 50 });
  } catch (e) {
    throw new Error(`timed out waiting for ${seconds} s of simulated time: ${e.message.split('\n')[0]}`);
  }
  return stats(target);
}

// World coordinates -> CSS pixels of the canvas (stats().view describes the fit).
export function toCanvas(s, x, y) {
  const v = s.view;
  return { x: v.width / 2 + (x - v.centerX) * v.scale, y: v.height / 2 - (y - v.centerY) * v.scale };
}

// Water is blue: the particle colours and the liquid shading, from the
// light surface to the deep blue, are all well bluer than red and green;
// the background is near black, the container's walls a grey blue.
function isWater(r, g, b) {
  return b > 90 && b >= r + 60 && b > g;
}

// Calls visit(x, y, water) for each canvas pixel inside a world-space
// rectangle, water telling whether it is water-coloured.
function eachPixel(png, s, x0, y0, x1, y1, visit) {
  const a = toCanvas(s, x0, y1), b = toCanvas(s, x1, y0);
  for (let y = Math.ceil(a.y); y < Math.floor(b.y); y++) {
    for (let x = Math.ceil(a.x); x < Math.floor(b.x); x++) {
      const o = (y * png.width + x) * 4;
      visit(x, y, isWater(png.data[o], png.data[o + 1], png.data[o + 2]));
    }
  }
}

// Fraction of water-coloured pixels inside a world-space rectangle.
export function waterFraction(png, s, x0, y0, x1, y1) {
  let water = 0, total = 0;
  eachPixel(png, s, x0, y0, x1, y1, (x, y, wet) => {
    total++;
    if (wet) water++;
  });
  return { water, total, fraction: total ? water / total : 0 };
}

// Centre of the water-coloured pixels inside a world-space rectangle, in
// world units ({x, y}; null if none): where the picture puts the water.
export function waterCentroid(png, s, x0, y0, x1, y1) {
  let n = 0, sx = 0, sy = 0;
  eachPixel(png, s, x0, y0, x1, y1, (x, y, wet) => {
    if (!wet) return;
    n++;
    sx += x + 0.5;
    sy += y + 0.5;
  });
  if (!n) return null;
  const v = s.view;
  return { x: v.centerX + (sx / n - v.width / 2) / v.scale, y: v.centerY - (sy / n - v.height / 2) / v.scale };
}

// Serves the embed example (web/site/embed.html) to `target` (a page or a
// context) with `query` added to its toy's address: a test fixes what
// the example leaves to the device, such as the particle count.
export function routeEmbedExample(target, query) {
  return target.route('**/embed.html', async (route) => {
    const response = await route.fetch();
    const body = (await response.text()).replace('?embed=1&amp;scene=drop', `?embed=1&amp;scene=drop&amp;${query.replaceAll('&', '&amp;')}`);
    await route.fulfill({ response, body });
  });
}

// Waits until the page has drawn `frames` frames; returns its stats().
export async function ready(target, frames = 3, timeout = 90_000) {
  await target.waitForFunction(
    (n) => {
      const s = window.tidepool && window.tidepool.stats();
      return s && s.frame >= n;
    },
    frames,
    { timeout, polling: 100 },
  );
  return stats(target);
}

// Waits for predicate(arg) in the page, failing with `what` on a time-out.
export async function until(target, predicate, arg, what, timeout = 90_000) {
  try {
    await target.waitForFunction(predicate, arg, { timeout, polling: 50 });
  } catch (e) {
    throw new Error(`timed out waiting for ${what}: ${e.message.split('\n')[0]}`);
  }
}

// Waits until the page has drawn `frames` more frames, so that what changed
// before the call is on the screen and in stats() (the water's mean is
// measured as a frame is drawn); returns its stats().
export async function nextFrames(target, frames = 2) {
  const n = (await stats(target)).frame + frames;
  await until(target, (m) => window.tidepool.stats().frame >= m, n, `${frames} more frames`);
  return stats(target);
}

// Runs `frames` fixed 1/60 s frames of simulation at once
// (tidepool.advance, at most 600 a call), then waits for them to be drawn;
// returns stats().
export async function advance(target, frames) {
  for (let left = frames; left > 0; left -= 600) {
    const n = Math.min(left, 600);
    assert.equal(await target.evaluate((k) => window.tidepool.advance(k), n), true, `advance(${n})`);
  }
  return nextFrames(target);
}

// Waits for `n` animation frames of the document in `target`: as long as a
// page that is awake there takes to draw n frames.
export function animationFrames(target, n) {
  return target.evaluate(
    (k) => new Promise((resolve) => {
      const step = () => (--k > 0 ? requestAnimationFrame(step) : resolve());
      requestAnimationFrame(step);
    }),
    n,
  );
}

// One step of a paused page, for input stepped frame by frame: the page's
// next frame reads the input sent before the call and sets the pointers'
// forces, then `ticks` fixed ticks run with them (tidepool.advance, which
// moves the drags' clock as far). The page's own frames were registered
// first, so they run before this one in the same animation frame. Returns
// stats() right after.
export function stepFrame(target, ticks = 1) {
  return target.evaluate(
    (k) => new Promise((resolve, reject) => requestAnimationFrame(() => {
      if (!window.tidepool.advance(k)) reject(new Error(`advance(${k}) refused`));
      else resolve(window.tidepool.stats());
    })),
    ticks,
  );
}

// A grid scene's drawn dye (tidepool.dye(): mode, bits, size, totals,
// coreTotals, correlation, grid), or null outside the grid scenes.
export const dye = (target) => target.evaluate(() => window.tidepool.dye());
