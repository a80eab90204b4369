// Browser tests for the web toy. Playwright (npm playwright-core, no
// downloaded browsers) drives Debian's Chromium headless; WebGL 2 runs on
// SwiftShader. The tests serve build/web/dist with web/server.mjs themselves
// (TIDEPOOL_DIST overrides the folder, CHROMIUM the browser).
//
//   node --test web/tests/          (scripts/test.sh runs this)
//
// Each test logs the numbers it checked as test diagnostics ("# ..." lines).
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import http from 'node:http';
import path from 'node:path';
import { startServer } from '../server.mjs';
import { decodePng } from './png.mjs';
import {
  advance, animationFrames, nextFrames, routeEmbedExample, shots, simulate, stats, toCanvas, watchPage, waterCentroid, waterFraction, ready, until,
  useBrowser, dist,
} from './support.mjs';

// Every page here fixes its particle count (particles=N turns auto quality
// off), so what a test sees never depends on how fast its frames run.
// Where the water's physics or picture is checked, fewer particles than the
// scenes' defaults; elsewhere fewer still, drawn as particles (the liquid
// surface is the most work to draw).
const VIEW = { width: 480, height: 300 };
const FEW = 'particles=1500';
const LIGHT = 'particles=600&color=water';
const LONG = 90_000;

const h = useBrowser();
const { closeAll } = h;

// Opens a page and records everything that would make a person frown;
// setup(context) runs before the page loads.
async function openPage(url, { hasTouch = false, viewport = VIEW, deviceScaleFactor = 1, base = h.server.url, setup } = {}) {
  const context = await h.newContext({ viewport, deviceScaleFactor, hasTouch });
  if (setup) await setup(context);
  const page = await context.newPage();
  const log = watchPage(page, base);
  await page.goto(new URL(url, base).href);
  return { context, page, log };
}

// Records the stats of every animation frame in the page (a round trip
// from the test takes several frames, too coarse to see a drag in).
async function record(page) {
  await page.evaluate(() => {
    window.__frames = [];
    const loop = () => {
      const s = window.tidepool.stats();
      if (s) window.__frames.push({ frame: s.frame, time: s.time, mean: s.mean, pointers: s.pointers });
      window.__recorder = requestAnimationFrame(loop);
    };
    loop();
  });
}
async function recorded(page) {
  return page.evaluate(() => {
    cancelAnimationFrame(window.__recorder);
    return window.__frames;
  });
}

// A drag as a hand does it: Chromium delivers one pointer move per frame,
// so `steps` moves take about `steps` frames. Returns once the page has let
// go of the force (the release is read in the next frame).
async function drag(page, from, to, steps = 40) {
  await page.mouse.move(from.x, from.y);
  await page.mouse.down();
  await record(page);
  await page.mouse.move(to.x, to.y, { steps });
  const seen = await recorded(page);
  await page.mouse.up();
  await released(page);
  return seen;
}

// Waits until no force acts: after that, advance() runs without the drag's.
const released = (page) => until(page, () => window.tidepool.stats().pointers.length === 0, null, 'the forces to end with the gesture');

// Averages over the frames in which pointer k (sorted by x) touched water.
function pointerAverages(samples, k = 0) {
  let n = 0, vx = 0, dragX = 0, affected = 0, count = 0;
  for (const s of samples) {
    count = Math.max(count, s.pointers.length);
    const p = [...s.pointers].sort((a, b) => a.x - b.x)[k];
    if (!p || p.affected === 0) continue;
    n++;
    vx += p.vx;
    dragX += p.dragX;
    affected += p.affected;
  }
  return { samples: n, vx: n ? vx / n : 0, dragX: n ? dragX / n : 0, affected: n ? affected / n : 0, count };
}

const fmt = (v) => Number(v).toFixed(4);

describe('Tidepool in Chromium (WebGL 2 on SwiftShader)', { concurrency: 1 }, () => {
  test('the page loads cleanly and draws the water where the simulation puts it, at the start, later, and as it runs', { timeout: LONG * 3 }, async (t) => {
    const { page, log } = await openPage(`/?scene=dam-break&paused=1&color=water&${FEW}`);
    const s = await ready(page, 3);
    const gl = await page.evaluate(() => {
      const c = document.createElement('canvas').getContext('webgl2');
      return c ? c.getParameter(c.VERSION) : null;
    });
    t.diagnostic(`frame ${s.frame}, ${s.particles} particles, ${s.fps.toFixed(1)} fps; GL: ${gl}`);
    assert.equal(s.glReady, true);
    assert.equal(s.particles, 1500);
    assert.equal(s.quality.auto, false, 'particles=N fixes the count');
    assert.equal(await page.locator('#status').isHidden(), true, 'the loading message went away');
    assert.equal(await page.evaluate(() => window.crossOriginIsolated), false, 'not isolated by default');
    // (On a screen this small the panel starts folded to its title bar,
    // clear of the water.)

    // The dam-break column fills x 0..1, y 0..2 of a 4 x 3 tank, stretched
    // to the screen's shape (x by kx, y by ky).
    const kx = (s.box.max.x - s.box.min.x) / 4, ky = (s.box.max.y - s.box.min.y) / 3;
    // Each colour mode's picture of the water now: where its pixels are
    // (fractions of world rectangles in the 4 x 3 units) and their centre,
    // against the centre of the particles (stats().mean).
    async function look(when, regions) {
      const out = {};
      for (const color of ['water', 'liquid']) {
        assert.equal(await page.evaluate((c) => window.tidepool.setColor(c), color), true);
        const now = await nextFrames(page);
        assert.equal(now.color, color);
        const png = decodePng(await page.screenshot({ path: path.join(shots, `dam-break-${when}-${color}.png`) }));
        const tank = [now.box.min.x, now.box.min.y, now.box.max.x, now.box.max.y];
        const c = waterCentroid(png, now, ...tank);
        assert.ok(c, `${when}, ${color}: water is drawn`);
        const at = Object.fromEntries(
          Object.entries(regions).map(([name, [x0, y0, x1, y1]]) => [name, waterFraction(png, now, x0 * kx, y0 * ky, x1 * kx, y1 * ky).fraction]),
        );
        t.diagnostic(
          `${when}, ${color}: t = ${now.time.toFixed(3)} s; water pixels centred at (${fmt(c.x)}, ${fmt(c.y)}), particles at ` +
            `(${fmt(now.mean.x)}, ${fmt(now.mean.y)}); ${Object.entries(at).map(([k, v]) => `${k} ${(100 * v).toFixed(1)} %`).join(', ')}`,
        );
        // Within a tenth of the tank: the picture is of the water the
        // simulation holds, not of another state nor mirrored.
        assert.ok(Math.abs(c.x - now.mean.x) < 0.1 * (tank[2] - tank[0]), `${when}, ${color}: the water is drawn where its particles are in x`);
        assert.ok(Math.abs(c.y - now.mean.y) < 0.1 * (tank[3] - tank[1]), `${when}, ${color}: and in y`);
        out[color] = { s: now, at };
      }
      return out;
    }

    // At t = 0: the column, and nothing beside or above it.
    const start = await look('start', { column: [0.05, 0.05, 0.95, 1.95], beside: [2.1, 0.1, 3.9, 1.9], above: [0.1, 2.15, 0.9, 2.9] });
    for (const [color, { at }] of Object.entries(start)) {
      assert.ok(at.column > 0.6, `${color}: the column is water (${at.column})`);
      assert.ok(at.beside < 0.01, `${color}: the rest of the tank is dry (${at.beside})`);
      assert.ok(at.above < 0.01, `${color}: nothing above the column (${at.above})`);
    }

    // 1.5 s later the column has collapsed: the surge has crossed the tank
    // floor to the far wall, and the top of the column is gone.
    const s1 = await advance(page, 90);
    assert.ok(Math.abs(s1.time - 1.5) < 1e-3, `advance(90) runs 1.5 s (${s1.time})`);
    const later = await look('later', { far: [3.2, 0.02, 3.98, 0.3], top: [0.05, 1.4, 0.95, 1.95] });
    for (const [color, { at }] of Object.entries(later)) {
      assert.ok(at.far > 0.3, `${color}: water along the far end of the floor (${at.far})`);
      assert.ok(at.top < 0.05, `${color}: the top of the column has fallen (${at.top})`);
    }

    // The page's own frames run the simulation on, and draw what it holds.
    assert.equal(await page.evaluate(() => window.tidepool.pause(false)), true);
    const ran = await simulate(page, 0.25);
    assert.equal(await page.evaluate(() => window.tidepool.pause(true)), true);
    assert.ok(ran.frame > s1.frame, 'frames advance');
    const running = await look('running', {});
    t.diagnostic(`running: frames ${s1.frame} -> ${running.liquid.s.frame}, time ${fmt(s1.time)} -> ${fmt(running.liquid.s.time)} s`);
    assert.ok(running.liquid.s.time >= 1.75, 'simulated time passes in the page\'s frames');
    assert.deepEqual(log.errors, []);
    assert.deepEqual(log.outside, []);
    await closeAll();
  });

  test('while the build downloads, the loading state shows on the page\'s own background', { timeout: LONG }, async (t) => {
    // The page makes the WebGL context before the build has arrived; a new
    // context is black until something draws, so the page clears it. The
    // build is held back until the context is made and a frame has shown it.
    let release;
    const held = new Promise((resolve) => { release = resolve; });
    const setup = async (context) => {
      await context.route('**/tidepool.wasm', async (route) => { await held; await route.continue(); });
      await context.addInitScript(() => {
        const get = HTMLCanvasElement.prototype.getContext;
        HTMLCanvasElement.prototype.getContext = function (...args) {
          const c = get.apply(this, args);
          if (c && args[0] === 'webgl2') window.__contextMade = true;
          return c;
        };
      });
    };
    const { page, log } = await openPage(`/?${LIGHT}`, { setup });
    await until(page, () => window.__contextMade === true, null, 'the page to make its WebGL context');
    await animationFrames(page, 2);
    const message = await page.locator('#message').textContent();
    const png = decodePng(await page.screenshot());
    release();
    const pixel = (x, y) => Array.from(png.data.slice((y * png.width + x) * 4, (y * png.width + x) * 4 + 3));
    const corners = [pixel(20, 20), pixel(png.width - 20, png.height - 20)];
    t.diagnostic(`message "${message}", corner pixels ${JSON.stringify(corners)} (the page's background is 11, 19, 32)`);
    assert.match(message, /Loading Tidepool/);
    for (const c of corners) assert.ok(Math.abs(c[0] - 11) + Math.abs(c[1] - 19) + Math.abs(c[2] - 32) <= 6, `background, not ${c}`);
    await ready(page, 1);
    assert.deepEqual(log.errors, []);
    await closeAll();
  });

  test('the server sends application/wasm', async () => {
    const type = await new Promise((resolve, reject) => {
      http.get(new URL('tidepool.wasm', h.server.url), (res) => {
        res.resume();
        resolve(res.headers['content-type']);
      }).on('error', reject);
    });
    assert.equal(type, 'application/wasm');
  });

  test('a mouse drag moves the fluid in the drag direction', { timeout: LONG * 3 }, async (t) => {
    // zero-g: two droplets float toward each other with equal and opposite
    // momentum, so the mean stays put unless something pushes. (In a full
    // pool, water pushed sideways mostly circulates around the pointer.)
    const { page, log } = await openPage(`/?scene=zero-g&embed=1&${LIGHT}`);
    await ready(page, 3);
    const s0 = await advance(page, 18);
    // The 2 x 2 scene, stretched to the tank: a point of it in world units.
    const at = (s, x, y) => toCanvas(s, x * (s.box.max.x - s.box.min.x) / 2, y * (s.box.max.y - s.box.min.y) / 2);
    const during = await drag(page, at(s0, 0.2, 1.0), at(s0, 1.6, 1.0));
    const s1 = await advance(page, 6);
    // Once more from the start, the other way (the first push left the
    // water drifting right: zero-g has no friction).
    assert.equal(await page.evaluate(() => window.tidepool.reset()), true);
    const r0 = await advance(page, 18);
    const back = await drag(page, at(r0, 1.8, 1.0), at(r0, 0.4, 1.0));
    const s2 = await advance(page, 6);
    const right = s1.mean.x - s0.mean.x, left = s2.mean.x - r0.mean.x;
    const p1 = pointerAverages(during), p2 = pointerAverages(back);
    t.diagnostic(
      `${during.length} + ${back.length} frames of dragging; ` +
      `mean x ${fmt(s0.mean.x)} -> ${fmt(s1.mean.x)} (drag right: ${right >= 0 ? '+' : ''}${fmt(right)} m); after a reset ` +
        `${fmt(r0.mean.x)} -> ${fmt(s2.mean.x)} (drag left: ${fmt(left)} m); while in the water the pointer moved at ` +
        `${fmt(p1.dragX)} then ${fmt(p2.dragX)} m/s and the water under it at ${fmt(p1.vx)} then ${fmt(p2.vx)} m/s`,
    );
    assert.equal(p1.count, 1, 'one pointer while dragging');
    assert.ok(p1.samples > 0 && p2.samples > 0, 'the pointer went through the water');
    assert.ok(p1.dragX > 0.1 && p2.dragX < -0.1, 'the force carries the drag velocity');
    assert.ok(p1.vx > 0 && p2.vx < 0, 'the water under the pointer follows it');
    assert.ok(right > 0.1, `dragging right moves the water right (${right})`);
    assert.ok(left < -0.1, `dragging left moves it back left (${left})`);
    assert.equal(s2.quality.auto, false);
    assert.deepEqual(log.errors, []);
    await closeAll();
  });

  test('two simultaneous touches both act on the fluid', { timeout: LONG * 3 }, async (t) => {
    const { context, page, log } = await openPage(`/?scene=zero-g&embed=1&${LIGHT}`, { hasTouch: true });
    await ready(page, 3);
    const s0 = await advance(page, 18);
    const cdp = await context.newCDPSession(page);
    // One finger from each side sweeps its droplet toward the middle, the
    // way the mouse test pushes one (the 2 x 2 scene stretched to the tank).
    const kx = (s0.box.max.x - s0.box.min.x) / 2, ky = (s0.box.max.y - s0.box.min.y) / 2;
    const path2 = (k) => [
      { ...toCanvas(s0, (0.15 + 0.7 * k) * kx, 0.95 * ky), id: 1 },
      { ...toCanvas(s0, (1.85 - 0.7 * k) * kx, 1.0 * ky), id: 2 },
    ];
    await cdp.send('Input.dispatchTouchEvent', { type: 'touchStart', touchPoints: path2(0) });
    await record(page);
    const steps = 40;
    for (let i = 1; i <= steps; i++)
      await cdp.send('Input.dispatchTouchEvent', { type: 'touchMove', touchPoints: path2(i / steps) });
    const seen = await recorded(page);
    const s1 = await stats(page);
    await cdp.send('Input.dispatchTouchEvent', { type: 'touchEnd', touchPoints: [] });
    // The forces end with the touches (or this waits in vain).
    await released(page);
    const left = pointerAverages(seen, 0), right = pointerAverages(seen, 1);
    const mid = seen[Math.floor(seen.length / 2)].pointers.map((p) => `(${fmt(p.x)}, ${fmt(p.y)})`).join(' and ');
    t.diagnostic(
      `${seen.length} frames, forces at once: ${left.count}, mid-gesture at ${mid}; left finger: ${left.samples} frames in water, ` +
        `${left.affected.toFixed(0)} particles, drag ${fmt(left.dragX)} m/s, water ${fmt(left.vx)} m/s; right finger: ` +
        `${right.samples} frames, ${right.affected.toFixed(0)} particles, drag ${fmt(right.dragX)} m/s, water ${fmt(right.vx)} m/s; ` +
        `mean x ${fmt(s0.mean.x)} -> ${fmt(s1.mean.x)}`,
    );
    assert.equal(left.count, 2, 'two fingers, two forces');
    assert.ok(left.samples > 0 && right.samples > 0, 'each finger reaches water');
    // Each finger pushes its own droplet its own way, at the same time.
    assert.ok(left.dragX > 0.1 && right.dragX < -0.1, 'each force carries its own finger velocity');
    assert.ok(left.vx > 0, `water under the left finger moves right (${left.vx})`);
    assert.ok(right.vx < 0, `water under the right finger moves left (${right.vx})`);
    assert.deepEqual(log.errors, []);
    await closeAll();
  });

  test('embed=1 hides the panel behind a small button', { timeout: LONG * 2 }, async (t) => {
    const corner = { x0: 0, y0: 0, x1: 320, y1: 260 };
    const grab = async (query) => {
      // (The panel starts folded on screens under 600 px.)
      const { page, log } = await openPage(`/?scene=dam-break&paused=1&${LIGHT}${query}`, { viewport: { width: 800, height: 600 } });
      const s = await ready(page, 3);
      const png = decodePng(await page.screenshot({ path: path.join(shots, query ? 'embed.png' : 'panel.png') }));
      return { page, log, s, png };
    };
    const full = await grab('');
    const embed = await grab('&embed=1');
    let differ = 0, total = 0;
    for (let y = corner.y0; y < corner.y1; y++) {
      for (let x = corner.x0; x < corner.x1; x++) {
        const o = (y * full.png.width + x) * 4;
        const d = Math.abs(full.png.data[o] - embed.png.data[o]) + Math.abs(full.png.data[o + 1] - embed.png.data[o + 1]) +
          Math.abs(full.png.data[o + 2] - embed.png.data[o + 2]);
        total++;
        if (d > 30) differ++;
      }
    }
    t.diagnostic(`panel open: ${full.s.panelOpen} vs embed: ${embed.s.panelOpen}; top-left pixels that differ: ${differ}/${total}`);
    assert.equal(full.s.panelOpen, true);
    assert.equal(embed.s.panelOpen, false);
    assert.ok(differ / total > 0.2, 'the panel is really not drawn in embed mode');
    // The small button brings it back.
    await embed.page.mouse.click(40, 20);
    await until(embed.page, () => window.tidepool.stats().panelOpen, null, 'the panel to open');
    assert.deepEqual(full.log.errors, []);
    assert.deepEqual(embed.log.errors, []);
    await closeAll();
  });

  test('bad query values are ignored with a warning, never injected', { timeout: LONG * 2 }, async (t) => {
    const query = new URLSearchParams({
      scene: '<img src=x onerror=alert(1)>',
      particles: '-5',
      color: '--paused=1',  // a value cannot pose as another option
      paused: 'maybe',
      embed: '2',
      bogus: '1',
    });
    // (The one page here that leaves auto quality on: that it is on is how
    // the page shows it ignored the bad count. Nothing checked here depends
    // on the count it then picks.)
    const { page, log } = await openPage(`/?${query}`);
    const s = await ready(page, 3);
    t.diagnostic(`scene ${s.scene}, color ${s.color}, paused ${s.paused}, ${s.particles} particles; warnings: ${JSON.stringify(log.warnings)}`);
    assert.equal(s.scene, 'dam-break');
    assert.equal(s.color, 'liquid', 'the default colour mode');
    assert.equal(s.paused, false);
    assert.equal(s.quality.auto, true, 'the count is the page\'s own choice, as with no particles given');
    for (const word of ['scene', 'particles', 'color', 'paused', 'embed', 'bogus'])
      assert.ok(log.warnings.some((w) => w.includes(word)), `a warning names ${word}`);
    assert.equal(await page.evaluate(() => document.querySelectorAll('img').length), 0, 'no markup injected');
    assert.deepEqual(log.errors, []);
    await closeAll();
  });

  test('the embed example: its buttons drive the toy by postMessage, and the toy sleeps while scrolled out of view', { timeout: LONG * 3 }, async (t) => {
    // The example as served, its toy's count fixed.
    const fixCount = (context) => routeEmbedExample(context, LIGHT);
    const { page, log } = await openPage('/embed.html', { viewport: { width: 640, height: 600 }, setup: fixCount });
    const frame = page.frames().find((f) => f.url().includes('embed=1'));
    assert.ok(frame, 'the embed page has the toy in an iframe');
    assert.equal((await ready(frame, 3)).quality.auto, false);
    const param = (name) => frame.evaluate((n) => window.tidepool.info().params.find((p) => p.name === n).value, name);

    await page.click('#pause');
    await until(frame, () => window.tidepool.stats().paused === true, null, 'pause by message');
    await page.click('#resume');
    await until(frame, () => window.tidepool.stats().paused === false, null, 'resume by message');
    await page.click('#dam');
    await until(frame, () => window.tidepool.stats().scene === 'dam-break', null, 'reset by message');
    await page.click('#honey');
    await until(frame, () => window.tidepool.info().params.find((p) => p.name === 'viscosity').value === 5, null, 'setParam by message');
    // The page's own stats line is filled from {type: 'stats'} replies.
    await until(page, () => /^frame \d+/.test(document.getElementById('stats').textContent), null, 'the example\'s stats line');
    // A reply goes to whoever asked.
    const reply = await page.evaluate(
      () =>
        new Promise((resolve) => {
          const toy = document.getElementById('toy').contentWindow;
          const onReply = (e) => {
            if (e.source === toy && e.data && e.data.type === 'stats') {
              window.removeEventListener('message', onReply);
              resolve(e.data);
            }
          };
          window.addEventListener('message', onReply);
          toy.postMessage({ type: 'stats' }, '*');
        }),
    );
    assert.equal(reply.type, 'stats');
    assert.equal(reply.stats.scene, 'dam-break');
    // Hostile or malformed messages change nothing and run nothing. The toy
    // takes messages in order: once the last, a valid one, has acted, the
    // others have been read.
    await page.evaluate(() => {
      const toy = document.getElementById('toy').contentWindow;
      toy.postMessage({ type: 'eval', code: 'document.body.innerHTML = ""' }, '*');
      toy.postMessage('pause', '*');
      toy.postMessage({ type: 'pause', value: 'yes' }, '*');
      toy.postMessage({ type: 'setParam', name: 'viscosity', value: '<b>1</b>' }, '*');
      toy.postMessage({ type: 'setParam', name: '__proto__', value: 1 }, '*');
      toy.postMessage({ type: 'reset', scene: '<script>alert(1)</script>' }, '*');
      toy.postMessage({ type: 'setParam', name: 'gravity_y', value: -8 }, '*');
    });
    await until(frame, () => window.tidepool.stats().gravity.y === -8, null, 'the last message to act');
    const after = await stats(frame);
    assert.equal(after.paused, false);
    assert.equal(after.scene, 'dam-break');
    assert.equal(await param('viscosity'), 5);
    assert.equal(await frame.evaluate(() => !!document.getElementById('canvas')), true);
    t.diagnostic(`stats reply: frame ${reply.stats.frame}, scene ${reply.stats.scene}; after hostile messages: scene ${after.scene}, viscosity ${await param('viscosity')}`);

    // Scrolled out of view, the toy sleeps: no frames and no simulated time
    // while the post draws 30 frames of its own; back in view it goes on
    // from where it was.
    await page.evaluate(() => window.scrollTo(0, document.body.scrollHeight));
    await until(frame, () => window.tidepool.stats().awake === false, null, 'sleep when scrolled away');
    const a = await stats(frame);
    await animationFrames(page, 30);
    const b = await stats(frame);
    await page.evaluate(() => window.scrollTo(0, 0));
    await until(frame, (n) => window.tidepool.stats().frame > n + 3, b.frame, 'frames after scrolling back');
    const c = await stats(frame);
    t.diagnostic(`offscreen: frame ${a.frame} -> ${b.frame}, time ${fmt(a.time)} -> ${fmt(b.time)}; back: frame ${c.frame}, time ${fmt(c.time)}`);
    assert.equal(b.frame, a.frame, 'no frames while offscreen');
    assert.equal(b.time, a.time, 'no simulation while offscreen');
    assert.ok(c.time > b.time && c.time - b.time < 1.0, 'resumes where it was (no catch-up jump)');
    assert.deepEqual(log.errors, []);
    assert.deepEqual(log.outside, []);
    await closeAll();
  });

  test('the toy sleeps in a hidden tab', { timeout: LONG * 2 }, async (t) => {
    const { context, page, log } = await openPage(`/?${LIGHT}`);
    await ready(page, 3);
    // Another tab in front hides this one (visibilitychange).
    const other = await context.newPage();
    await other.goto('about:blank');
    await other.bringToFront();
    const hidden = await page.evaluate(() => document.visibilityState);
    if (hidden !== 'hidden') {
      // Headless Chromium may keep background tabs "visible": emulate the
      // event the way a browser sends it instead.
      await page.evaluate(() => {
        Object.defineProperty(document, 'visibilityState', { configurable: true, get: () => 'hidden' });
        document.dispatchEvent(new Event('visibilitychange'));
      });
    }
    await until(page, () => window.tidepool.stats().awake === false, null, 'sleep when hidden');
    const a = await stats(page);
    // As long as the tab in front takes to draw 30 frames.
    await animationFrames(other, 30);
    const b = await stats(page);
    t.diagnostic(`visibility after another tab came to front: ${hidden}; hidden: frame ${a.frame} -> ${b.frame}`);
    assert.equal(b.frame, a.frame);
    if (hidden !== 'hidden') {
      await page.evaluate(() => {
        Object.defineProperty(document, 'visibilityState', { configurable: true, get: () => 'visible' });
        document.dispatchEvent(new Event('visibilitychange'));
      });
    } else {
      await page.bringToFront();
    }
    await until(page, (n) => window.tidepool.stats().frame > n + 3, b.frame, 'frames after the tab is back');
    assert.deepEqual(log.errors, []);
    await closeAll();
  });

  test('a lost WebGL context shows a message and is restored', { timeout: LONG * 2 }, async (t) => {
    const { page, log } = await openPage(`/?particles=600&color=liquid`);
    await ready(page, 3);
    await page.evaluate(() => {
      window.__lose = document.getElementById('canvas').getContext('webgl2').getExtension('WEBGL_lose_context');
      window.__lose.loseContext();
    });
    await until(page, () => window.tidepool.stats().glReady === false, null, 'the context to be lost');
    const message = await page.locator('#message').textContent();
    assert.equal(await page.locator('#status').isVisible(), true);
    await page.evaluate(() => window.__lose.restoreContext());
    await until(page, () => window.tidepool.stats().glReady === true, null, 'the context to be restored');
    const s = await stats(page);
    await until(page, (n) => window.tidepool.stats().frame > n + 5, s.frame, 'frames after restoring');
    const png = decodePng(await page.screenshot());
    const water = waterFraction(png, await stats(page), 0.0, 0.0, 4.0, 3.0);
    t.diagnostic(`message while lost: "${message}"; water pixels after restore: ${water.water}`);
    assert.match(message, /lost/i);
    assert.equal(await page.locator('#status').isHidden(), true);
    assert.ok(water.water > 1000, 'drawing again after the restore');
    assert.deepEqual(log.errors, []);
    await closeAll();
  });

  test('without WebGL 2 or WebAssembly the page says so instead of staying blank', { timeout: LONG }, async (t) => {
    const cases = [
      {
        name: 'no WebGL 2',
        script: () => {
          const get = HTMLCanvasElement.prototype.getContext;
          HTMLCanvasElement.prototype.getContext = function (type, ...rest) {
            return type === 'webgl2' ? null : get.call(this, type, ...rest);
          };
        },
        expect: /WebGL 2/,
      },
      { name: 'no WebAssembly', script: () => { delete window.WebAssembly; }, expect: /WebAssembly/ },
    ];
    for (const c of cases) {
      const { page, log } = await openPage(`/?${LIGHT}`, { setup: (context) => context.addInitScript(c.script) });
      await page.locator('#status.error').waitFor({ timeout: LONG });
      const text = await page.locator('#message').textContent();
      t.diagnostic(`${c.name}: "${text.replace(/\n/g, ' ')}"`);
      assert.match(text, c.expect);
      assert.deepEqual(log.errors.filter((e) => e.startsWith('pageerror')), []);
      await closeAll();
    }
  });

  test('tilt: a phone tipped 45° to the right moves the water right; tilt off points gravity down again', { timeout: LONG * 3 }, async (t) => {
    // DeviceOrientation: beta tips the phone front to back, gamma left to
    // right; lying flat (beta 0) and tipped right (gamma 45°), down in the
    // screen's plane is to the right.
    const orient = (page, beta, gamma) =>
      page.evaluate(([b, g]) => window.dispatchEvent(new DeviceOrientationEvent('deviceorientation', { alpha: 0, beta: b, gamma: g })), [beta, gamma]);
    const { page, log } = await openPage(`/?scene=drop&paused=1&color=water&${FEW}`, { hasTouch: true, viewport: { width: 260, height: 560 } });
    await ready(page, 2);
    const runs = {};
    for (const [name, gamma] of [['right', 45], ['left', -45]]) {
      // Each from the scene's start.
      if (name === 'left') assert.equal(await page.evaluate(() => window.tidepool.reset()), true);
      const s0 = await nextFrames(page);
      await orient(page, 90, 0);  // upright: down is down
      const upright = await stats(page);
      await orient(page, 0, gamma);
      const tipped = await stats(page);
      const s1 = await advance(page, 60);
      runs[name] = { s0, upright, tipped, s1 };
    }
    assert.equal(await page.evaluate(() => window.tidepool.tilt(false)), true);
    await orient(page, 0, 45);  // ignored while off
    runs.off = await stats(page);
    assert.deepEqual(log.errors, []);
    await closeAll();
    const g0 = Math.hypot(runs.right.s0.gravity.x, runs.right.s0.gravity.y);
    for (const [name, r] of Object.entries(runs))
      t.diagnostic(`${name}: tilt ${(r.s1 || r).tilt}, gravity upright (${r.upright ? r.upright.gravity.x.toFixed(2) : '-'}, ` +
        `${r.upright ? r.upright.gravity.y.toFixed(2) : '-'}), tipped (${r.tipped ? r.tipped.gravity.x.toFixed(2) : '-'}, ` +
        `${r.tipped ? r.tipped.gravity.y.toFixed(2) : '-'}); mean x ${r.s0 ? r.s0.mean.x.toFixed(3) : '-'} -> ` +
        `${(r.s1 || r).mean.x.toFixed(3)}`);
    assert.ok(g0 > 9, `the scene's gravity ${g0}`);
    assert.equal(runs.right.upright.tilt, true, 'on by default on a touch screen: the first reading applies');
    assert.ok(Math.abs(runs.right.upright.gravity.x) < 1e-3 && Math.abs(runs.right.upright.gravity.y + g0) < 1e-3 * g0);
    assert.ok(Math.abs(runs.right.tipped.gravity.x - g0 * Math.SQRT1_2) < 1e-3 * g0, 'tipped 45°: g sin 45° to the right');
    assert.ok(Math.abs(runs.right.tipped.gravity.y) < 1e-3 * g0);
    assert.ok(runs.left.tipped.gravity.x < -0.7 * g0);
    const moved = runs.right.s1.mean.x - runs.left.s1.mean.x;
    assert.ok(moved > 0.2, `the water runs to the side the phone tips to (${moved.toFixed(3)} m apart)`);
    assert.ok(runs.right.s1.mean.x > runs.right.s0.mean.x + 0.1, 'tipped right, the water moves right');
    assert.equal(runs.left.s0.time, 0, 'the second run starts from the scene\'s start');
    assert.equal(runs.off.tilt, false);
    assert.ok(Math.abs(runs.off.gravity.x) < 1e-6 && Math.abs(runs.off.gravity.y + g0) < 1e-3 * g0, 'tilt off: gravity points down again');
    // A desktop has no tilt unless asked.
    const desktop = await openPage(`/?scene=drop&paused=1&${LIGHT}`);
    await ready(desktop.page, 2);
    await orient(desktop.page, 0, 45);
    const desk = await stats(desktop.page);
    assert.equal(desk.tilt, false);
    assert.ok(Math.abs(desk.gravity.x) < 1e-6, 'a desktop ignores the sensor');
    await closeAll();
  });

  test('HiDPI: the canvas follows devicePixelRatio and the window size', { timeout: LONG * 2 }, async (t) => {
    const { page, log } = await openPage(`/?${LIGHT}&paused=1`, { deviceScaleFactor: 2, viewport: { width: 640, height: 400 } });
    await ready(page, 3);
    const size = () => page.evaluate(() => {
      const c = document.getElementById('canvas');
      return { w: c.width, h: c.height, cssW: c.clientWidth, cssH: c.clientHeight };
    });
    const a = await size();
    await page.setViewportSize({ width: 500, height: 700 });
    await until(page, () => document.getElementById('canvas').width === 1000, null, 'the canvas to follow the resize');
    const b = await size();
    t.diagnostic(`dpr 2: canvas ${a.w}x${a.h} for ${a.cssW}x${a.cssH} CSS px; after resize ${b.w}x${b.h} for ${b.cssW}x${b.cssH}`);
    assert.deepEqual([a.w, a.h], [2 * a.cssW, 2 * a.cssH]);
    assert.deepEqual([b.w, b.h], [1000, 1400]);
    assert.deepEqual(log.errors, []);
    await closeAll();
  });

  test('also runs cross-origin isolated (COOP/COEP), as a threads build needs', { timeout: LONG * 2 }, async (t) => {
    const isolated = await startServer({ root: dist, port: 0, isolate: true });
    try {
      // (The first test checks that a page is not isolated by default.)
      const { page, log } = await openPage(`/?${LIGHT}`, { base: isolated.url });
      const s = await ready(page, 3);
      const coi = await page.evaluate(() => window.crossOriginIsolated);
      t.diagnostic(`crossOriginIsolated ${coi}, frame ${s.frame}, ${s.threads} threads`);
      assert.equal(coi, true);
      assert.deepEqual(log.errors, []);
      await closeAll();
    } finally {
      await isolated.close();
    }
  });
});
