// The toy as a host page's background (issue 48): a transparent page in a
// fixed iframe behind somebody's content (docs/embedding.md's snippet, served from
// a second origin), with none of the toy's controls; the mouse stirring
// without a button (hover=1); the dye's colours (palette=) and the random
// splats (splats=, seed=), which a share link carries; and the page's sharp
// copy of a grid scene's dye against the core's own (dye=core).
//
//   cd web && node --test --test-concurrency=1 tests/background.test.mjs
//
// Screenshots for people to look at go to web/screenshots/background-*.png,
// stir-phone*.png and smoke-phone*.png (docs/screenshots/ holds copies).
import { describe, test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import http from 'node:http';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { decodePng } from './png.mjs';
import { advance, dye, nextFrames, shots, stats, stepFrame, toCanvas, watchPage, ready, until, useBrowser } from './support.mjs';

const here = path.dirname(fileURLToPath(import.meta.url));
const LONG = 90_000;

// h.toy: the toy's host, http://127.0.0.1:P/; the host pages come from
// http://localhost:Q/ (another origin, another site).
const h = useBrowser({ servers: { toy: {} } });
const { closeAll } = h;
let site;
let siteUrl;
const pages = new Map();  // path -> HTML the host serves

before(async () => {
  site = http.createServer((req, res) => {
    const html = pages.get(new URL(req.url, 'http://x').pathname);
    res.writeHead(html ? 200 : 404, { 'Content-Type': 'text/html; charset=utf-8', 'Cache-Control': 'no-cache' });
    res.end(html || 'not found');
  });
  await new Promise((r) => site.listen(0, '127.0.0.1', r));
  siteUrl = `http://localhost:${site.address().port}/`;
});

after(async () => {
  if (site) await new Promise((r) => site.close(r));
});

// The snippet of docs/embedding.md ("As a page's background"), as it stands
// there, with its address pointed at the toy's server and its query
// replaced by `query`.
const readmeSrc = 'https://YOUR-HOST/tidepool/?bg=transparent&ui=0&walls=0&hover=1&scene=stir';
function backgroundSnippet(query) {
  const readme = fs.readFileSync(path.join(here, '..', '..', 'docs', 'embedding.md'), 'utf8');
  const at = readme.indexOf("**As a page's background.**");
  assert.ok(at >= 0, 'docs/embedding.md has the "As a page\'s background" snippet');
  const block = /```html\n([\s\S]*?)```/.exec(readme.slice(at));
  assert.ok(block && block[1].includes(readmeSrc), `the snippet's iframe opens ${readmeSrc}`);
  return block[1].replace(readmeSrc, `${h.toy.url}?${query}`);
}

// Somebody's home page: red (the colour the tests look for), a colour scheme
// of its own (which would make a frame that ignores it opaque), its words
// and a link in the middle third of the screen, clear of the top third and
// of the water at the bottom, and more below to scroll to.
function homePage(snippet) {
  return `<!doctype html><html lang="en"><head><meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1"><title>A home page</title><link rel="icon" href="data:,">
<style>:root{color-scheme:light dark} body{margin:0;background:#ff0000;font:18px/1.5 Georgia,serif}
main{max-width:24rem;margin:0 auto;padding:38vh 1rem 0}</style>
</head><body>
${snippet}
<main><h1 id="title">Somebody's home page</h1><p id="words">Words over the water. <a id="more" href="#more-words">Read more</a></p>
<p style="margin-top:120vh">The end of the page.</p></main>
</body></html>`;
}

async function openHost(name, html, { viewport = { width: 800, height: 600 }, hasTouch = false, isMobile = false, colorScheme = 'dark' } = {}) {
  pages.set('/' + name, html);
  const context = await h.newContext({ viewport, hasTouch, isMobile, colorScheme });
  const page = await context.newPage();
  const log = watchPage(page, siteUrl);
  await page.goto(siteUrl + name);
  return { context, page, log };
}
const toyFrame = (page) => page.frames().find((f) => f.url().startsWith(h.toy.url));
const outside = (log) => log.outside.filter((u) => !u.startsWith(h.toy.url));

// `hidden`: WebGL extensions the page is told its device lacks.
async function openPage(query, { viewport = { width: 480, height: 360 }, deviceScaleFactor = 1, hasTouch = false, isMobile = false, hidden = [] } = {}) {
  const context = await h.newContext({ viewport, deviceScaleFactor, hasTouch, isMobile });
  if (hidden.length) {
    await context.addInitScript((names) => {
      const proto = WebGL2RenderingContext.prototype, get = proto.getExtension, list = proto.getSupportedExtensions;
      proto.getExtension = function (name) { return names.includes(name) ? null : get.call(this, name); };
      proto.getSupportedExtensions = function () { return (list.call(this) || []).filter((n) => !names.includes(n)); };
    }, hidden);
  }
  const page = await context.newPage();
  const log = watchPage(page, h.toy.url);
  await page.goto(new URL(`/${query}`, h.toy.url).href);
  return { context, page, log };
}

// Which of the page's own controls show, and what the page paints itself.
const pageState = (target) =>
  target.evaluate(() => {
    const shown = (id) => {
      const el = document.getElementById(id);
      return !el.hidden && getComputedStyle(el).display !== 'none';
    };
    const bg = (el) => getComputedStyle(el).backgroundColor;
    const gl = document.getElementById('canvas').getContext('webgl2');
    return {
      tools: shown('tools'), touchbar: shown('touchbar'), gate: shown('gate'), slow: shown('slow'),
      gated: document.documentElement.classList.contains('gated'),
      backgrounds: [bg(document.documentElement), bg(document.body), bg(document.getElementById('status'))],
      alpha: gl ? gl.getContextAttributes().alpha : null,
      colorScheme: getComputedStyle(document.documentElement).colorScheme,
    };
  });

// A mouse drag along `points` (CSS pixels of the top page): the most
// pointers the toy in `toy` reported meanwhile.
async function drag(page, toy, points, steps = 6) {
  await page.mouse.move(points[0].x, points[0].y);
  await page.mouse.down();
  let most = 0;
  for (let k = 1; k < points.length; k++) {
    await page.mouse.move(points[k].x, points[k].y, { steps });
    most = Math.max(most, (await stats(toy)).pointers.length);
  }
  await page.mouse.up();
  await until(toy, () => window.tidepool.stats().pointers.length === 0, null, 'the force to end with the drag');
  return most;
}

// The same drag on a paused page, a tick a move (stepFrame): the same
// stroke, in the same simulated time, on any machine. Returns the most
// pointers a tick pushed with.
async function stepDrag(page, points, steps) {
  await page.mouse.move(points[0].x, points[0].y);
  await page.mouse.down();
  let most = (await stepFrame(page)).pointers.length;
  for (let k = 1; k < points.length; k++) {
    const [a, b] = [points[k - 1], points[k]];
    for (let i = 1; i <= steps; i++) {
      await page.mouse.move(a.x + ((b.x - a.x) * i) / steps, a.y + ((b.y - a.y) * i) / steps);
      most = Math.max(most, (await stepFrame(page)).pointers.length);
    }
  }
  await page.mouse.up();
  assert.equal((await stepFrame(page)).pointers.length, 0, 'the force ends with the drag');
  return most;
}

// The sharp-dye tests' stroke through the stir tank (stats `s`), in CSS
// pixels: down the middle and back across.
const stirStroke = (s) => [[0.5, 0.85], [0.35, 0.6], [0.65, 0.45], [0.4, 0.25], [0.6, 0.15]].map(([fx, fy]) =>
  toCanvas(s, s.box.min.x + fx * (s.box.max.x - s.box.min.x), s.box.min.y + fy * (s.box.max.y - s.box.min.y)));

// Mean colour of the screenshot's pixels in a rectangle of CSS pixels.
function meanRect(png, x0, y0, x1, y1) {
  const sum = [0, 0, 0];
  let n = 0;
  for (let y = Math.max(0, Math.ceil(y0)); y < Math.min(png.height, Math.floor(y1)); y++) {
    for (let x = Math.max(0, Math.ceil(x0)); x < Math.min(png.width, Math.floor(x1)); x++) {
      const o = (y * png.width + x) * 4;
      for (let k = 0; k < 3; k++) sum[k] += png.data[o + k];
      n++;
    }
  }
  return sum.map((v) => (n ? v / n : 0));
}
const rgb = (c) => `rgb(${c.map((v) => v.toFixed(0)).join(', ')})`;

// The tank's rectangle in CSS pixels.
function tankRect(s) {
  const a = toCanvas(s, s.box.min.x, s.box.max.y), b = toCanvas(s, s.box.max.x, s.box.min.y);
  return { x0: a.x, y0: a.y, x1: b.x, y1: b.y };
}

// The cells a grid of `grid` cells along the tank's longer side has (square
// cells: stable.cpp's fit()).
function cellsFor(s, grid) {
  const w = s.box.max.x - s.box.min.x, hh = s.box.max.y - s.box.min.y, dx = Math.max(w, hh) / grid;
  return Math.round(w / dx) * Math.round(hh / dx);
}

// The sharpest edge between two neighbouring stir bands in a screenshot, in
// pixels: along each row of the tank, wherever the colour runs from one band's
// colour to its neighbour's, the distance over which it goes from 10 % to
// 90 % of the way (linearly interpolated between pixels), the least of all.
// A run counts only if every pixel on it lies near the line between the two
// band colours (within a fifth of their distance), so a run through a third
// colour (dye stirred together) is no edge. `bands` are the four bands'
// drawn colours. Returns {min, count, widths} (count: the runs measured).
function sharpestEdge(png, rect, bands) {
  const widths = [];
  const x0 = Math.ceil(rect.x0) + 2, x1 = Math.floor(rect.x1) - 2;
  const y0 = Math.ceil(rect.y0 + 0.05 * (rect.y1 - rect.y0)), y1 = Math.floor(rect.y1 - 0.05 * (rect.y1 - rect.y0));
  const s = new Float64Array(x1 - x0), off = new Float64Array(x1 - x0);
  for (let k = 0; k + 1 < bands.length; k++) {
    const A = bands[k], d = [0, 1, 2].map((c) => bands[k + 1][c] - A[c]);
    const L2 = d[0] * d[0] + d[1] * d[1] + d[2] * d[2];
    for (let y = y0; y < y1; y++) {
      for (let x = x0; x < x1; x++) {
        const o = (y * png.width + x) * 4;
        const p = [png.data[o] - A[0], png.data[o + 1] - A[1], png.data[o + 2] - A[2]];
        const t = (p[0] * d[0] + p[1] * d[1] + p[2] * d[2]) / L2;
        const e = [p[0] - t * d[0], p[1] - t * d[1], p[2] - t * d[2]];
        s[x - x0] = t;
        off[x - x0] = Math.sqrt((e[0] * e[0] + e[1] * e[1] + e[2] * e[2]) / L2);
      }
      // Rising runs of t (band k to band k + 1), then falling ones.
      for (const sign of [1, -1]) {
        const v = (i) => (sign > 0 ? s[i] : 1 - s[i]);
        let lo = -1;  // the last pixel at or under 10 % with only rising, on-line pixels since
        for (let i = 0; i < s.length; i++) {
          if (off[i] > 0.2 || v(i) < -0.3 || v(i) > 1.3) { lo = -1; continue; }
          if (v(i) <= 0.1) { lo = i; continue; }
          if (lo < 0) continue;
          if (v(i) < v(i - 1) - 0.03) { lo = -1; continue; }  // not rising
          if (v(i) >= 0.9) {
            const x10 = lo + (0.1 - v(lo)) / (v(lo + 1) - v(lo));
            const x90 = i - 1 + (0.9 - v(i - 1)) / (v(i) - v(i - 1));
            widths.push(x90 - x10);
            lo = -1;
          }
        }
      }
    }
  }
  return { min: widths.length ? Math.min(...widths) : Infinity, count: widths.length, widths };
}

describe('the toy as a page\'s background', { concurrency: 1 }, () => {
  test('The background snippet: the host shows through above the water, not through it; its link works and the toy feels the pointer elsewhere', { timeout: LONG * 3 }, async (t) => {
    const html = homePage(backgroundSnippet('scene=dam-break&bg=transparent&ui=0&walls=0&particles=600'));
    const { page, log } = await openHost('home.html', html);
    const frame = toyFrame(page);
    assert.ok(frame, 'the home page has the toy in an iframe');
    assert.notEqual(new URL(page.url()).origin, new URL(frame.url()).origin);
    await ready(frame, 3);
    const inside = await pageState(frame);
    t.diagnostic(`inside the toy: ${JSON.stringify(inside)}`);
    assert.deepEqual([inside.tools, inside.touchbar, inside.gate, inside.slow], [false, false, false, false], 'no page controls (ui=0)');
    assert.deepEqual(inside.backgrounds, ['rgba(0, 0, 0, 0)', 'rgba(0, 0, 0, 0)', 'rgba(0, 0, 0, 0)'], 'html, body and the status box are transparent');
    assert.equal(inside.alpha, true, 'the canvas has an alpha channel');
    assert.equal(inside.colorScheme, 'normal', 'the toy declares no colour scheme');

    // The dam spread and settled (6 s), then held still for the picture.
    await advance(frame, 360);
    assert.equal(await frame.evaluate(() => window.tidepool.pause(true)), true);
    const s = await nextFrames(frame);
    assert.equal(s.scene, 'dam-break');
    assert.equal(s.quality.auto, false, 'the count is fixed');
    const png = decodePng(await page.screenshot({ path: path.join(shots, 'background-host.png') }));
    const W = png.width, H = png.height;

    // The top third of the screen: the host's red, wherever it is (the toy's
    // panel, walls or slow-motion sign would show here).
    let red = 0, worst = 0, worstAt = null;
    for (let y = 0; y < Math.floor(H / 3); y++) {
      for (let x = 0; x < W; x++) {
        const o = (y * W + x) * 4;
        const d = Math.max(255 - png.data[o], png.data[o + 1], png.data[o + 2]);
        if (d <= 4) red++;
        if (d > worst) { worst = d; worstAt = [x, y, png.data[o], png.data[o + 1], png.data[o + 2]]; }
      }
    }
    const redShare = red / (W * Math.floor(H / 3));
    // The water: the bottom 4 % of the tank (the settled water is a sixth
    // of its height), in from its sides.
    const tank = tankRect(s);
    const bandTop = tank.y1 - 0.04 * (tank.y1 - tank.y0);
    const x0 = tank.x0 + 0.05 * (tank.x1 - tank.x0), x1 = tank.x1 - 0.05 * (tank.x1 - tank.x0);
    let bluer = 0, n = 0;
    for (let y = Math.ceil(bandTop); y < Math.floor(tank.y1) - 1; y++) {
      for (let x = Math.ceil(x0); x < Math.floor(x1); x++) {
        const o = (y * W + x) * 4;
        if (png.data[o + 2] > png.data[o]) bluer++;
        n++;
      }
    }
    const water = meanRect(png, x0, bandTop, x1, tank.y1 - 1);
    t.diagnostic(`top third: ${(100 * redShare).toFixed(2)} % of pixels within 4 levels of the host's red (worst ${worst} levels off at ${JSON.stringify(worstAt)}); ` +
      `water (rows ${bandTop.toFixed(0)}-${tank.y1.toFixed(0)}): mean ${rgb(water)}, ${(100 * bluer / n).toFixed(1)} % of ${n} pixels bluer than red`);
    assert.ok(redShare >= 0.999, `the top third is the host's red (${(100 * redShare).toFixed(2)} %)`);
    assert.ok(n > 1000 && bluer / n >= 0.95, `the water hides the host: b > r (${(100 * bluer / n).toFixed(1)} %)`);
    assert.ok(water[2] > water[0] + 60, `the water is blue (${rgb(water)})`);

    // The host's link takes its click: the toy never sees it.
    assert.equal(await frame.evaluate(() => window.tidepool.pause(false)), true);
    await frame.evaluate(() => {
      window.__downs = 0;
      document.getElementById('canvas').addEventListener('pointerdown', () => window.__downs++);
    });
    await page.click('#more');
    await until(page, () => location.hash === '#more-words', null, 'the link to be followed');
    assert.equal(await frame.evaluate(() => window.__downs), 0, 'the click was the link\'s');

    // A drag where nothing covers the toy (over the water), and one over the
    // host's words (the body lets the pointer through): both stir the water.
    const overWater = await drag(page, frame, [{ x: 0.2 * W, y: tank.y1 - 30 }, { x: 0.5 * W, y: tank.y1 - 40 }, { x: 0.8 * W, y: tank.y1 - 30 }]);
    const words = await page.locator('#title').boundingBox();
    const overWords = await drag(page, frame, [{ x: words.x + 10, y: words.y + words.height / 2 }, { x: words.x + words.width - 10, y: words.y + words.height / 2 }]);
    const downs = await frame.evaluate(() => window.__downs);
    // The wheel over the toy scrolls the host page (the toy keeps no
    // overscroll of its own in a background).
    await page.mouse.move(0.5 * W, 0.2 * H);
    await page.mouse.wheel(0, 300);
    await until(page, () => window.scrollY > 0, null, 'the host page to scroll under the wheel');
    const scrolled = await page.evaluate(() => window.scrollY);
    t.diagnostic(`link followed: ${page.url()}; pointers seen by the toy: ${overWater} over the water, ${overWords} over the host's heading; pointerdowns in the toy: ${downs}; the wheel scrolled the host by ${scrolled} px`);
    assert.equal(overWater, 1, 'a drag over the bare background is the toy\'s');
    assert.equal(overWords, 1, 'a drag over the host\'s words reaches the toy');
    assert.equal(downs, 2);
    assert.deepEqual(log.errors, []);
    assert.deepEqual(outside(log), []);
    await closeAll();
  });

  test('The background snippet on desktop hosts (1280 x 800, 1920 x 1080): the dye reaches both side edges, and a finger\'s vertical pan scrolls the host', { timeout: LONG * 4 }, async (t) => {
    // As docs/embedding.md gives it: ui=0 keeps no room for a panel and walls=0 no
    // margin for the walls, so the tank is the whole frame.
    for (const viewport of [{ width: 1280, height: 800 }, { width: 1920, height: 1080 }]) {
      const name = `background-desktop-${viewport.width}.png`;
      const { page, log } = await openHost(name.replace('.png', '.html'), homePage(backgroundSnippet('bg=transparent&ui=0&walls=0&hover=1&scene=stir')),
        { viewport, hasTouch: true });
      const frame = toyFrame(page);
      await ready(frame, 3);
      await advance(frame, 60);
      const s = await nextFrames(frame);
      const tank = tankRect(s);
      const png = decodePng(await page.screenshot({ path: path.join(shots, name) }));
      const W = png.width, H = png.height;
      // In the three columns at each side edge: the rows where the dye
      // shows, not the host's red.
      const dyed = (x0) => {
        let rows = 0;
        for (let y = 0; y < H; y++) {
          let any = false;
          for (let x = x0; x < x0 + 3; x++) {
            const o = (y * W + x) * 4;
            any = any || Math.max(255 - png.data[o], png.data[o + 1], png.data[o + 2]) > 24;
          }
          rows += any;
        }
        return rows / H;
      };
      const left = dyed(0), right = dyed(W - 3);
      // A finger's vertical pan over the toy, where no host content lies:
      // the toy's canvas either lets the browser scroll the host page with
      // it or keeps it.
      const cdp = await page.context().newCDPSession(page);
      const x = Math.round(0.15 * W), y0 = Math.round(0.75 * H);
      await cdp.send('Input.dispatchTouchEvent', { type: 'touchStart', touchPoints: [{ x, y: y0 }] });
      for (let k = 1; k <= 10; k++) {
        await cdp.send('Input.dispatchTouchEvent', { type: 'touchMove', touchPoints: [{ x, y: y0 - 30 * k }] });
        await nextFrames(frame, 1);
      }
      await cdp.send('Input.dispatchTouchEvent', { type: 'touchEnd', touchPoints: [] });
      await nextFrames(frame, 2);
      const scrolled = await page.evaluate(() => window.scrollY);
      t.diagnostic(`${viewport.width} x ${viewport.height}: tank from x = ${tank.x0.toFixed(1)} to ${tank.x1.toFixed(1)} px of ${W}, ` +
        `y = ${tank.y0.toFixed(1)} to ${tank.y1.toFixed(1)} of ${H}; rows with dye at the left edge ${(100 * left).toFixed(1)} %, right ${(100 * right).toFixed(1)} %; ` +
        `a finger's pan scrolled the host by ${scrolled} px (${name})`);
      assert.ok(tank.x0 <= 2 && tank.x1 >= W - 2, `the tank reaches both side edges (${tank.x0.toFixed(1)}, ${tank.x1.toFixed(1)} of ${W})`);
      assert.ok(left > 0.5 && right > 0.5, `the dye shows at both side edges (${(100 * left).toFixed(1)} %, ${(100 * right).toFixed(1)} % of rows)`);
      assert.ok(scrolled > 100, `the host page scrolls under a finger's vertical pan (${scrolled} px)`);
      assert.deepEqual(log.errors, []);
      await closeAll();
    }
  });

  test('ui=0 wins over embed=1 and a touch screen: no buttons, touch bar, tap to play or slow-motion sign', { timeout: LONG * 4 }, async (t) => {
    const touch = { viewport: { width: 390, height: 844 }, hasTouch: true, isMobile: true };
    const seen = {};
    // A post on a touch screen (which shows "Tap to play"), and the toy's own
    // page there (which shows the touch bar); each with the UI and without.
    for (const ui of ['', '&ui=0']) {
      const post = await openHost(`post${ui ? '-bare' : ''}.html`,
        `<!doctype html><html><head><meta charset="utf-8"><title>post</title><link rel="icon" href="data:,"></head><body>
<iframe src="${h.toy.url}?embed=1&scene=dam-break&particles=600&color=water${ui}" style="width:100%;aspect-ratio:3/4;border:0" title="Tidepool"></iframe></body></html>`,
        touch);
      const frame = toyFrame(post.page);
      await ready(frame, 3);
      seen[`post${ui}`] = await pageState(frame);
      assert.deepEqual(post.log.errors, []);
      // The toy's own page in slow motion: Müller 2003 at the smallest CFL
      // factor, the substep cap out of the way, ends every frame on the
      // work bound (World::advance), at any page speed.
      const own = await openPage(`?scene=dam-break&particles=1500&solver=muller2003&color=water${ui}`, touch);
      const s = await ready(own.page, 3);
      assert.equal(await own.page.evaluate(() => window.tidepool.setParam('max_substeps', 1000)), true);
      assert.equal(await own.page.evaluate(() => window.tidepool.setParam('cfl', 0.02)), true);
      await until(own.page, () => window.tidepool.stats().workCapHit, null, 'a frame ended on the work bound');
      if (!ui) {
        await until(own.page, () => !document.getElementById('slow').hidden, null, 'the slow-motion sign (ui=1)');
      } else {
        // Frames in slow motion over a second of the page's time: five
        // times the period at which a page with its UI shows the sign.
        await own.page.evaluate(() => new Promise((done) => {
          let first = null, frames = 0;
          const look = (now) => {
            if (window.tidepool.stats().slowMotion) frames++, first ??= now;
            if (frames >= 10 && now - first >= 1000) done();
            else requestAnimationFrame(look);
          };
          requestAnimationFrame(look);
        }));
      }
      seen[`own${ui}`] = { ...(await pageState(own.page)), scene: s.scene, slowMotion: (await stats(own.page)).slowMotion };
      assert.deepEqual(own.log.errors, []);
      await closeAll();
    }
    for (const [k, v] of Object.entries(seen)) t.diagnostic(`${k}: ${JSON.stringify(v)}`);
    // What the tests would otherwise see: the gate in the post, the bar on the page.
    assert.equal(seen.post.gate, true, 'a post on a touch screen shows "Tap to play" (ui=1)');
    assert.equal(seen.own.touchbar, true, 'the toy\'s page on a touch screen has the touch bar (ui=1)');
    assert.equal(seen.own.slow, true, 'the toy\'s page in slow motion shows the sign (ui=1)');
    assert.equal(seen['own&ui=0'].slowMotion, true, 'the page without its UI is in slow motion too');
    for (const k of ['post&ui=0', 'own&ui=0']) {
      const v = seen[k];
      assert.deepEqual({ tools: v.tools, touchbar: v.touchbar, gate: v.gate, slow: v.slow, gated: v.gated },
        { tools: false, touchbar: false, gate: false, slow: false, gated: false }, `${k}: none of the page's controls`);
      assert.equal(v.alpha, false, `${k}: an opaque canvas without bg=transparent`);
    }
  });

  test('hover=1: the mouse moving without a button stirs the water its way; without hover=1 it does nothing', { timeout: LONG * 3 }, async (t) => {
    const result = {};
    for (const hover of ['&hover=1', '']) {
      // The user's grid (64 cells along the longer side), set while paused:
      // auto quality leaves it alone. (The grid refits at the next tick.)
      // The page stays paused: each mouse move is read by the next frame,
      // then one tick runs (stepFrame), so the drags' clock moves 1/60 s a
      // move on any machine.
      const { page, log } = await openPage(`?scene=stir&embed=1&paused=1${hover}`);
      const s0 = await ready(page, 3);
      assert.equal(await page.evaluate(() => window.tidepool.setParam('grid', 64)), true);
      const s = await stepFrame(page);
      assert.equal(s.cells, cellsFor(s0, 64), 'the 64-cell grid');
      // Left to right across the middle, a move a tick, recording the
      // pointers each tick pushed with.
      const at = (fx, fy) => toCanvas(s, s.box.min.x + fx * (s.box.max.x - s.box.min.x), s.box.min.y + fy * (s.box.max.y - s.box.min.y));
      const a = at(0.2, 0.5), b = at(0.8, 0.5);
      const N = 40;
      const samples = [];
      for (let k = 0; k <= N; k++) {
        await page.mouse.move(a.x + ((b.x - a.x) * k) / N, a.y + ((b.y - a.y) * k) / N);
        samples.push((await stepFrame(page)).pointers);
      }
      const counts = samples.map((p) => p.length);
      const late = samples.slice(Math.floor(samples.length / 2)).filter((p) => p.length === 1).map((p) => p[0]);
      const mean = (f) => late.reduce((acc, p) => acc + f(p), 0) / Math.max(1, late.length);
      result[hover || 'none'] = {
        frames: samples.length, most: Math.max(...counts), withPointer: counts.filter((c) => c > 0).length,
        dragX: mean((p) => p.dragX), dragY: mean((p) => p.dragY), vx: mean((p) => p.vx), vy: mean((p) => p.vy),
        affected: mean((p) => p.affected), late: late.length,
      };
      assert.deepEqual(log.errors, []);
      await closeAll();
    }
    const on = result['&hover=1'], off = result.none;
    t.diagnostic(`hover=1: up to ${on.most} pointer, in ${on.withPointer} of ${on.frames} ticks; second half: drag (${on.dragX.toFixed(3)}, ${on.dragY.toFixed(3)}) m/s, ` +
      `water under it (${on.vx.toFixed(3)}, ${on.vy.toFixed(3)}) m/s over ${on.affected.toFixed(0)} cells; without: up to ${off.most} pointers`);
    assert.equal(on.most, 1, 'the hovering mouse is one pointer');
    assert.equal(on.withPointer, on.frames, 'it stays one in every tick of the moving mouse');
    assert.ok(on.dragX > 0 && on.dragX > 3 * Math.abs(on.dragY), 'its drag velocity points the way the mouse moved (right)');
    assert.ok(on.affected > 5, 'it covers fluid cells');
    assert.ok(on.vx > 0.01 && on.vx > Math.abs(on.vy), 'the water under it moves the same way');
    assert.equal(off.most, 0, 'without hover=1 a mouse with no button held is no pointer');
  });

  test('palette=ff0000,0000ff: the splats pour red, then blue', { timeout: LONG * 3 }, async (t) => {
    // The stir tank's four bands (red, yellow, green, blue) already hold every
    // hue, and a splat stirs them as well as pouring dye, so the pixels that
    // change on one page hardly tell which colour was poured. Instead a twin
    // page gets the same splats (same seed, same times, same places and the
    // same stirring: stir has no buoyancy, so the dye never moves the water)
    // with the palette 000000, which pours nothing. Whatever differs between
    // the two is the poured dye alone: in totals, (red, 0, blue) amounts; on
    // the screen, pixels where the poured channel went up and green did not
    // (the renderer keeps the dye's hue and scales by its strongest
    // channel, so a channel poured into grows while the others hold or
    // shrink). Splats every 0.5 s, each 0.25 s long: two by t = 1.5 s.
    const query = '?scene=stir&embed=1&paused=1&splats=0.5&seed=3';
    const twins = {};
    for (const palette of ['ff0000,0000ff', '000000']) {
      const { page, log } = await openPage(`${query}&palette=${palette}`);
      const s0 = await ready(page, 3);
      const s = await advance(page, 90);
      const d = await dye(page);
      const png = decodePng(await page.screenshot({ path: path.join(shots, `background-palette-${palette.replace(',', '-')}.png`) }));
      twins[palette] = { s0, s, d, png, hash: await page.evaluate(() => window.tidepool.hash()) };
      assert.deepEqual(log.errors, []);
    }
    const A = twins['ff0000,0000ff'], B = twins['000000'];
    assert.equal(A.s.cells, B.s.cells, 'the twins have the same grid');
    assert.ok(A.s.time >= 1.49, `two splats' time passed (${A.s.time} s)`);
    const delta = (key) => [0, 1, 2].map((c) => A.d[key][c] - B.d[key][c]);
    const core = delta('coreTotals'), drawn = delta('totals');
    t.diagnostic(`core dye totals ${JSON.stringify(A.d.coreTotals)} vs ${JSON.stringify(B.d.coreTotals)}: poured ${core.map((v) => v.toFixed(3)).join(', ')}; ` +
      `drawn dye: poured ${drawn.map((v) => v.toFixed(3)).join(', ')}; hashes ${A.hash} / ${B.hash}`);
    for (const [name, p] of [['core', core], ['drawn', drawn]]) {
      const scale = p[0] + p[2];
      assert.ok(p[0] > 0 && p[2] > 0, `${name}: red and blue were poured (${p})`);
      assert.ok(Math.abs(p[1]) <= 0.05 * scale, `${name}: no green was (${p})`);
      assert.ok(Math.min(p[0], p[2]) >= 0.2 * Math.max(p[0], p[2]), `${name}: two splats, one of each (${p})`);
    }

    // On the screen: the tank's pixels that differ between the twins.
    const rect = tankRect(A.s);
    let reds = 0, blues = 0, other = 0;
    const W = A.png.width;
    for (let y = Math.ceil(rect.y0); y < Math.floor(rect.y1); y++) {
      for (let x = Math.ceil(rect.x0); x < Math.floor(rect.x1); x++) {
        const o = (y * W + x) * 4;
        const d = [0, 1, 2].map((c) => A.png.data[o + c] - B.png.data[o + c]);
        if (Math.abs(d[0]) + Math.abs(d[1]) + Math.abs(d[2]) < 30) continue;
        const top = Math.max(d[0], d[2]);
        if (top > 0 && d[1] <= 0.35 * top) {
          if (d[0] >= d[2]) reds++;
          else blues++;
        } else {
          other++;
        }
      }
    }
    const changed = reds + blues + other;
    t.diagnostic(`${changed} pixels differ: ${reds} gained red, ${blues} gained blue, ${other} something else`);
    assert.ok(reds > 100 && blues > 100, 'both splats show, one red and one blue');
    assert.ok(other <= 0.05 * changed, `the poured dye is red or blue, nothing else (${other} of ${changed})`);
    await closeAll();
  });

  test('splats=2&seed=5: two pages hold the same state after the same frames, and a share link carries the show', { timeout: LONG * 4 }, async (t) => {
    // The state hash is the core's: the pages draw the core's dye, whose
    // copy on the GPU the hash does not hold.
    const show = 'palette=ff3366,33ccff&water=112233&splats=2&seed=5';
    const base = '?scene=stir&embed=1&paused=1&dye=core';
    const hashes = {};
    const a = await openPage(`${base}&${show}`);
    await ready(a.page, 3);
    const start = await a.page.evaluate(() => window.tidepool.hash());
    const link = await a.page.evaluate(() => window.tidepool.shareLink());
    for (const [name, query] of [['b', `${base}&${show}`], ['other seed', `${base}&${show.replace('seed=5', 'seed=6')}`], ['no splats', base]]) {
      const p = await openPage(query);
      await ready(p.page, 3);
      hashes[name] = await p.page.evaluate(() => (window.tidepool.advance(300), window.tidepool.hash()));
      assert.deepEqual(p.log.errors, []);
      await p.context.close();
    }
    hashes.a = await a.page.evaluate(() => (window.tidepool.advance(300), window.tidepool.hash()));
    t.diagnostic(`link: ${link}`);
    const hash = new URL(link).hash;
    for (const part of ['palette=ff3366,33ccff', 'water=112233', 'splats=2', 'seed=5']) assert.ok(hash.includes(part), `the link carries ${part}`);
    // The link, opened paused at the same size: the same show.
    const l = await openPage(link.replace(/^.*?#/, `${base}#`));
    await ready(l.page, 3);
    hashes.link = await l.page.evaluate(() => (window.tidepool.advance(300), window.tidepool.hash()));
    t.diagnostic(`start ${start}; after 300 frames: ${JSON.stringify(hashes)}`);
    assert.notEqual(hashes.a, start, 'the splats moved the dye');
    assert.equal(hashes.b, hashes.a, 'the same seed, the same state');
    assert.equal(hashes.link, hashes.a, 'the link\'s page holds the same state');
    assert.notEqual(hashes['other seed'], hashes.a, 'another seed, another show');
    assert.notEqual(hashes['no splats'], hashes.a);
    for (const { log } of [a, l]) {
      assert.deepEqual(log.errors, []);
      assert.deepEqual(log.warnings.filter((w) => /tidepool/.test(w)), []);
    }
    await closeAll();
  });

  test('the background\'s values: bad ones in the query or a link are refused with a warning', { timeout: LONG * 4 }, async (t) => {
    // In the query: the page passes them on, the program refuses them.
    const q = await openPage('?scene=stir&paused=1&embed=1&bg=opaque&ui=2&walls=maybe&hover=x&palette=ff00zz&water=blue&splats=-1&seed=x&dye=cpu');
    await ready(q.page, 1);
    const warned = q.log.warnings.join('\n');
    t.diagnostic(`query warnings: ${q.log.warnings.filter((w) => !/unknown query/.test(w)).map((w) => w.slice(0, 60)).join(' | ')}`);
    for (const key of ['bg', 'ui', 'walls', 'hover', 'palette', 'water', 'splats', 'seed', 'dye']) {
      assert.ok(new RegExp(`\\b${key} "`).test(warned), `the program warns about ${key}`);
      assert.ok(!warned.includes(`unknown query parameter "${key}"`), `the page knows ${key}`);
    }
    assert.deepEqual(q.log.errors, []);
    await closeAll();
    // In a link's hash: the page checks the shape.
    const cases = [
      ['#tp=1&scene=stir&palette=ff00', /palette colour is not RRGGBB/],
      ['#tp=1&scene=stir&palette=' + Array(9).fill('ff0000').join(','), /too many palette colours/],
      ['#tp=1&scene=stir&water=%3Cb%3E', /water is not RRGGBB/],
      ['#tp=1&scene=stir&splats=often', /splats is not a number/],
      ['#tp=1&scene=stir&seed=-3', /seed is not a whole number/],
    ];
    for (const [hash, warning] of cases) {
      const { page, log } = await openPage(`?scene=drop&particles=600&color=water&paused=1${hash}`);
      const s = await ready(page, 1);
      const seen = log.warnings.filter((w) => warning.test(w));
      t.diagnostic(`${hash.slice(0, 48)} -> scene ${s.scene}; warning: ${seen[0] || '(none)'}`);
      assert.ok(seen.length > 0, `a warning for ${hash.slice(0, 40)}`);
      assert.equal(s.scene, 'drop', 'the whole link is ignored');
      assert.deepEqual(log.errors, []);
      await closeAll();
    }
  });

  test('the sharp dye: on a phone its band edges are at most a third as wide as the core\'s, its totals hold, and it follows the core', { timeout: LONG * 6 }, async (t) => {
    const phone = { viewport: { width: 390, height: 844 }, deviceScaleFactor: 1 };
    const seen = {};
    for (const mode of ['gpu', 'core']) {
      const { page, log } = await openPage(`?scene=stir&ui=0&paused=1&dpr=1${mode === 'core' ? '&dye=core' : ''}`, phone);
      const s0 = await ready(page, 3);
      assert.equal(await page.evaluate(() => window.tidepool.setParam('grid', 128)), true);
      await nextFrames(page);
      const d0 = await dye(page);
      assert.equal(d0.mode, mode, `dye().mode is ${mode}`);
      assert.equal(d0.bits, 32, 'in 32-bit values');
      // The four bands' drawn colours, from the middle of each at the start.
      const start = decodePng(await page.screenshot());
      const rect = tankRect(s0), bw = (rect.x1 - rect.x0) / 4;
      const bands = [0, 1, 2, 3].map((k) => meanRect(start, rect.x0 + (k + 0.3) * bw, rect.y0 + 0.2 * (rect.y1 - rect.y0),
        rect.x0 + (k + 0.7) * bw, rect.y1 - 0.2 * (rect.y1 - rect.y0)));
      const before = sharpestEdge(start, rect, bands);

      // The same stroke on both pages, stepped a tick a move on the paused page.
      const pointers = await stepDrag(page, stirStroke(s0), 10);
      const d1 = await dye(page);
      await advance(page, 300);  // 5 s, walls closed
      const d2 = await dye(page);
      const s = await nextFrames(page);
      const file = path.join(shots, `stir-phone${mode === 'core' ? '-core' : ''}.png`);
      const png = decodePng(await page.screenshot({ path: file }));
      const after = sharpestEdge(png, tankRect(s), bands);
      seen[mode] = { before, after, d0, d1, d2, pointers, s, bands };
      const drift = [0, 1, 2].map((c) => d2.totals[c] / d1.totals[c] - 1);
      t.diagnostic(`${mode}: dye ${d2.size.join('x')} texels on a ${d2.grid.join('x')} grid; bands ${bands.map(rgb).join(' ')}; ` +
        `sharpest edge ${before.min.toFixed(2)} px at the start (${before.count} runs), ${after.min.toFixed(2)} px after the stroke (${after.count} runs); ` +
        `totals ${d1.totals.map((v) => v.toFixed(2)).join(', ')} -> ${d2.totals.map((v) => v.toFixed(2)).join(', ')} over 5 s ` +
        `(${drift.map((v) => (100 * v).toFixed(2)).join(', ')} %), core ${d2.coreTotals.map((v) => v.toFixed(2)).join(', ')}; correlation ${d1.correlation.toFixed(4)} after the drag, ${d2.correlation.toFixed(4)} 5 s later; ${file}`);
      assert.equal(pointers, 1, 'the stroke reached the water');
      assert.deepEqual(log.errors, []);
      await closeAll();
    }
    const g = seen.gpu, c = seen.core;
    assert.ok(g.after.count >= 20 && c.after.count >= 20, `band edges were found on both (${g.after.count}, ${c.after.count})`);
    assert.ok(g.after.min <= c.after.min / 3, `the sharp dye's sharpest edge (${g.after.min.toFixed(2)} px) is at most a third of the core's (${c.after.min.toFixed(2)} px)`);
    assert.ok(g.d2.size[0] > g.d2.grid[0] && g.d2.size[1] > g.d2.grid[1], 'the sharp dye has more texels than the grid has cells');
    for (let k = 0; k < 3; k++) {
      const drift = Math.abs(g.d2.totals[k] / g.d1.totals[k] - 1);
      assert.ok(drift <= 0.02, `channel ${k} of the drawn dye holds within 2 % over 5 s (${(100 * drift).toFixed(2)} %)`);
    }
    // Right after the drag, both copies hold the same pattern at their own
    // resolutions. (Over the next seconds of free mixing they part: the
    // core's own advection gains or loses a few per cent of a colour, the
    // page's holds its totals; the diagnostic line gives both numbers.)
    assert.ok(g.d1.correlation >= 0.9, `after the drag the drawn dye follows the core's (correlation ${g.d1.correlation})`);
  });

  test('the sharp dye on lesser devices: in 16-bit floats where 32-bit ones do not filter, and the core\'s dye where nothing float can be drawn into', { timeout: LONG * 4 }, async (t) => {
    // (With every extension, the sharp-dye test above holds 32-bit values.)
    const phone = { viewport: { width: 390, height: 844 }, deviceScaleFactor: 1 };
    const devices = [
      { name: 'no OES_texture_float_linear', hidden: ['OES_texture_float_linear'], mode: 'gpu', bits: 16 },
      { name: 'no float colour buffers', hidden: ['EXT_color_buffer_float', 'EXT_color_buffer_half_float'], mode: 'core', bits: 32 },
    ];
    for (const device of devices) {
      const { page, log } = await openPage(`?scene=stir&ui=0&paused=1&dpr=1`, { ...phone, hidden: device.hidden });
      const s0 = await ready(page, 3);
      assert.equal(await page.evaluate(() => window.tidepool.setParam('grid', 128)), true);
      let line = '';
      if (device.mode === 'gpu') {
        // The sharp-dye test's stroke, stepped a tick a move, then 5 s: the
        // page's dye holds its totals and follows the core's.
        assert.equal(await stepDrag(page, stirStroke(s0), 10), 1, `${device.name}: the stroke reached the water`);
        const d1 = await dye(page);
        await advance(page, 300);
        const d2 = await dye(page);
        const drift = [0, 1, 2].map((c) => d2.totals[c] / d1.totals[c] - 1);
        line = `totals ${d1.totals.map((v) => v.toFixed(3)).join(', ')} -> ${d2.totals.map((v) => v.toFixed(3)).join(', ')} over 5 s ` +
          `(${drift.map((v) => (100 * v).toFixed(2)).join(', ')} %); correlation ${d1.correlation.toFixed(4)} after the drag; `;
        for (const c of [0, 1, 2]) assert.ok(Math.abs(drift[c]) <= 0.02, `${device.name}: channel ${c} holds within 2 % over 5 s`);
        assert.ok(d1.correlation >= 0.9, `${device.name}: after the drag the drawn dye follows the core's`);
      } else {
        await stepFrame(page);
      }
      const d = await dye(page);
      const s = await nextFrames(page);
      const png = decodePng(await page.screenshot());
      const rect = tankRect(s), bw = (rect.x1 - rect.x0) / 4;
      // The tank's four quarters, where the bands started: still coloured,
      // and not all alike (a stroke mixes the middle, not the sides).
      const quarters = [0, 1, 2, 3].map((k) => meanRect(png, rect.x0 + (k + 0.2) * bw, rect.y0 + 0.6 * (rect.y1 - rect.y0),
        rect.x0 + (k + 0.8) * bw, rect.y1 - 0.05 * (rect.y1 - rect.y0)));
      const spread = Math.max(...[0, 1, 2].map((c) => Math.max(...quarters.map((q) => q[c])) - Math.min(...quarters.map((q) => q[c]))));
      t.diagnostic(`${device.name}: ${d.mode}, ${d.bits} bits, ${d.size.join('x')} texels; ${line}quarters ${quarters.map(rgb).join(' ')}`);
      assert.equal(d.mode, device.mode, `${device.name}: the dye is held in ${device.mode === 'gpu' ? 'the page' : 'the core'}`);
      assert.equal(d.bits, device.bits, `${device.name}: ${device.bits}-bit values`);
      assert.ok(spread > 40, `${device.name}: the bands are drawn (their colours differ by ${spread.toFixed(0)})`);
      assert.deepEqual(log.errors, []);
      await closeAll();
    }
  });

  test('smoke on a phone, drawn from the sharp dye and from the core\'s (screenshots)', { timeout: LONG * 3 }, async (t) => {
    const phone = { viewport: { width: 390, height: 844 }, deviceScaleFactor: 1 };
    const seen = {};
    for (const mode of ['gpu', 'core']) {
      const { page, log } = await openPage(`?scene=smoke&ui=0&paused=1&dpr=1${mode === 'core' ? '&dye=core' : ''}`, phone);
      await ready(page, 3);
      const s = await advance(page, 360);
      const d = await dye(page);
      const file = path.join(shots, `smoke-phone${mode === 'core' ? '-core' : ''}.png`);
      const png = decodePng(await page.screenshot({ path: file }));
      const rect = tankRect(s);
      const mean = meanRect(png, rect.x0, rect.y0, rect.x1, rect.y1);
      seen[mode] = { d, mean };
      t.diagnostic(`${mode}: t = ${s.time.toFixed(2)} s, dye ${d.size.join('x')} texels, drawn totals ${d.totals.map((v) => v.toFixed(3)).join(', ')}, ` +
        `core's ${d.coreTotals.map((v) => v.toFixed(3)).join(', ')}, correlation ${d.correlation.toFixed(4)}; tank's mean colour ${rgb(mean)}; ${file}`);
      assert.deepEqual(log.errors, []);
      await closeAll();
    }
    for (const mode of ['gpu', 'core']) {
      const { d, mean } = seen[mode];
      assert.equal(d.mode, mode);
      const drawn = d.totals[0] + d.totals[1] + d.totals[2], core = d.coreTotals[0] + d.coreTotals[1] + d.coreTotals[2];
      assert.ok(core > 0, `${mode}: smoke has risen`);
      assert.ok(Math.abs(drawn / core - 1) <= 0.1, `${mode}: the drawn dye holds the smoke the core holds (${drawn.toFixed(3)} vs ${core.toFixed(3)})`);
      assert.ok(mean[0] + mean[1] + mean[2] > 15, `${mode}: and it shows (${rgb(mean)})`);
    }
  });
});
