// Browser tests of the grid scenes (stable fluids: cavity, stir, smoke) in
// the web toy: the dye and the colour modes are drawn from the grid's
// fields, a drag stirs them, and the page API (stats, setParam, reset, hash)
// works as for particles. Same setup as browser.test.mjs: playwright-core
// drives Debian's Chromium (WebGL 2 on SwiftShader), web/server.mjs serves
// build/web/dist in-process (TIDEPOOL_DIST overrides it, CHROMIUM the browser).
//
//   node --test web/tests/grid.test.mjs
//
// Screenshots for people to look at go to web/screenshots/grid-*.png.
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import path from 'node:path';
import { decodePng } from './png.mjs';
import { advance, nextFrames, shots, stats, toCanvas, watchPage, ready, until, useBrowser } from './support.mjs';

// Auto quality sizes a grid only while the simulation runs, and never a
// lid-driven cavity's, nor one the user set (setParam('grid', ...)), nor
// any on a page given particles=N: each page here stays paused (advance()
// runs it) or has its grid fixed so before it runs.
const VIEW = { width: 480, height: 360 };
const LONG = 90_000;

const h = useBrowser();
const { closeAll } = h;

async function openPage(query) {
  const context = await h.newContext({ viewport: VIEW });
  const page = await context.newPage();
  const log = watchPage(page, h.server.url);
  await page.goto(new URL(`/?${query}`, h.server.url).href);
  return { page, log };
}

// The cells a grid of `grid` cells along the tank's longer side has, with
// square cells (stable.cpp's fit()): the tank takes the page's shape.
function cellsFor(s, grid) {
  const w = s.box.max.x - s.box.min.x, h = s.box.max.y - s.box.min.y, dx = Math.max(w, h) / grid;
  return Math.round(w / dx) * Math.round(h / dx);
}

// Mean colour of the canvas pixels inside a world-space rectangle.
function meanColor(png, s, x0, y0, x1, y1) {
  const a = toCanvas(s, x0, y1), b = toCanvas(s, x1, y0);
  const sum = [0, 0, 0];
  let n = 0;
  for (let y = Math.ceil(a.y); y < Math.floor(b.y); y++) {
    for (let x = Math.ceil(a.x); x < Math.floor(b.x); x++) {
      const o = (y * png.width + x) * 4;
      for (let k = 0; k < 3; k++) sum[k] += png.data[o + k];
      n++;
    }
  }
  return sum.map((v) => (n ? v / n : 0));
}

// How much the pixels of a world-space rectangle vary: the mean distance
// of each pixel's colour from the rectangle's mean colour (0 for a flat fill).
function spread(png, s, x0, y0, x1, y1) {
  const m = meanColor(png, s, x0, y0, x1, y1);
  const a = toCanvas(s, x0, y1), b = toCanvas(s, x1, y0);
  let d = 0, n = 0;
  for (let y = Math.ceil(a.y); y < Math.floor(b.y); y++) {
    for (let x = Math.ceil(a.x); x < Math.floor(b.x); x++) {
      const o = (y * png.width + x) * 4;
      d += Math.abs(png.data[o] - m[0]) + Math.abs(png.data[o + 1] - m[1]) + Math.abs(png.data[o + 2] - m[2]);
      n++;
    }
  }
  return n ? d / n : 0;
}

// Fraction of pixels in a world-space rectangle whose colour changed by
// more than 40 (summed over the channels) between two screenshots.
function changed(before, after, s, x0, y0, x1, y1) {
  const a = toCanvas(s, x0, y1), b = toCanvas(s, x1, y0);
  let c = 0, n = 0;
  for (let y = Math.ceil(a.y); y < Math.floor(b.y); y++) {
    for (let x = Math.ceil(a.x); x < Math.floor(b.x); x++) {
      const o = (y * before.width + x) * 4;
      const d = Math.abs(before.data[o] - after.data[o]) + Math.abs(before.data[o + 1] - after.data[o + 1]) +
        Math.abs(before.data[o + 2] - after.data[o + 2]);
      if (d > 40) c++;
      n++;
    }
  }
  return n ? c / n : 0;
}

const rgb = (c) => `rgb(${c.map((v) => v.toFixed(0)).join(', ')})`;

describe('Grid scenes in Chromium (WebGL 2 on SwiftShader)', { concurrency: 1 }, () => {
  test('the grid scenes are listed; stir loads on its 128-cell grid, without particles, its dye drawn the right way up', { timeout: LONG * 2 }, async (t) => {
    const { page, log } = await openPage('scene=stir&paused=1&embed=1');
    const s = await ready(page, 3);
    const scenes = await page.evaluate(() => window.tidepool.info().scenes);
    const colors = await page.evaluate(() => window.tidepool.info().colors);
    t.diagnostic(`scenes ${scenes.join(' ')}; colours ${colors.join(' ')}; stir: ${s.cells} cells, ${s.particles} particles, colour ${s.color}`);
    for (const name of ['cavity', 'stir', 'smoke']) assert.ok(scenes.includes(name), `${name} is in the scene list`);
    for (const name of ['dye', 'speed', 'pressure', 'vorticity']) assert.ok(colors.includes(name), `${name} is a colour mode`);
    assert.equal(s.scene, 'stir');
    assert.equal(s.particles, 0);
    assert.equal(s.quality.grid, 0, 'the scene\'s own grid (auto quality has not run)');
    // grid = 128 cells along the tank's longer side, square cells (the tank
    // takes the page's shape).
    assert.equal(s.cells, cellsFor(s, 128), 'stir: 128 cells along the longer side');
    assert.equal(s.color, 'dye', 'a grid scene starts in the dye mode');

    // Four vertical bands, red, yellow, green, blue from the left, in a
    // 4 x 3 tank stretched to the page's shape (x by kx, y by ky).
    const kx = (s.box.max.x - s.box.min.x) / 4, ky = (s.box.max.y - s.box.min.y) / 3;
    const png = decodePng(await page.screenshot({ path: path.join(shots, 'grid-stir-start.png') }));
    const band = (f, k) => f(png, s, (k + 0.2) * kx, 0.3 * ky, (k + 0.8) * kx, 2.7 * ky);
    const bands = [0, 1, 2, 3].map((k) => band(meanColor, k));
    t.diagnostic(`stir bands: ${bands.map(rgb).join(', ')}`);
    const [red, yellow, green, blue] = bands;
    assert.ok(red[0] > red[1] + 60 && red[0] > red[2] + 60, `band 1 is red (${rgb(red)})`);
    assert.ok(yellow[0] > yellow[2] + 60 && yellow[1] > yellow[2] + 60, `band 2 is yellow (${rgb(yellow)})`);
    assert.ok(green[1] > green[0] + 40 && green[1] > green[2] + 20, `band 3 is green (${rgb(green)})`);
    assert.ok(blue[2] > blue[0] + 60 && blue[2] > blue[1] + 30, `band 4 is blue (${rgb(blue)})`);
    for (let k = 0; k < 4; k++) {
      const flat = band(spread, k);
      assert.ok(flat < 12, `band ${k + 1} is an even colour (spread ${flat})`);
    }
    assert.deepEqual(log.errors, []);
    await closeAll();
  });

  test('the cavity: red dye over blue at the start; a second on, each colour mode shows the flow the lid drives, where it is', { timeout: LONG * 2 }, async (t) => {
    // The unit square; its top wall slides right. (Auto quality leaves the
    // cavity's grid alone: it is the benchmark's.)
    const { page, log } = await openPage('scene=cavity&paused=1&embed=1');
    const s0 = await ready(page, 3);
    const png0 = decodePng(await page.screenshot());
    const top = meanColor(png0, s0, 0.1, 0.6, 0.9, 0.9), bottom = meanColor(png0, s0, 0.1, 0.1, 0.9, 0.4);
    t.diagnostic(`start: top ${rgb(top)}, bottom ${rgb(bottom)}`);
    assert.ok(top[0] > top[2] + 60, `the top half is red (${rgb(top)})`);
    assert.ok(bottom[2] > bottom[0] + 60, `the bottom half is blue (${rgb(bottom)})`);

    const s = await advance(page, 60);
    // Where to look: under the lid, the middle of the floor, and the two top
    // corners (the lid's flow leaves the left wall and runs into the right).
    const regions = {
      lid: [0.2, 0.9, 0.8, 0.98], floor: [0.3, 0.05, 0.7, 0.25],
      topLeft: [0.02, 0.8, 0.15, 0.97], topRight: [0.85, 0.8, 0.98, 0.97],
    };
    const seen = {};
    for (const color of ['dye', 'speed', 'pressure', 'vorticity']) {
      assert.equal(await page.evaluate((c) => window.tidepool.setColor(c), color), true);
      const now = await nextFrames(page);
      assert.equal(now.color, color);
      const png = decodePng(await page.screenshot({ path: path.join(shots, `grid-cavity-${color}.png`) }));
      seen[color] = Object.fromEntries(Object.entries(regions).map(([k, r]) => [k, meanColor(png, now, ...r)]));
      t.diagnostic(`${color}: ${Object.entries(seen[color]).map(([k, c]) => `${k} ${rgb(c)}`).join(', ')}`);
    }
    const light = (c) => c[0] + c[1] + c[2];
    t.diagnostic(`t = ${s.time.toFixed(3)} s, max speed ${s.maxSpeed.toFixed(3)} m/s`);
    // Dye: still red over blue.
    assert.ok(seen.dye.lid[0] > seen.dye.lid[2] + 60, 'dye: red under the lid');
    assert.ok(seen.dye.floor[2] > seen.dye.floor[0] + 60, 'dye: blue on the floor');
    // Speed (black at rest, through red to yellow): fast under the lid, slow on the floor.
    assert.ok(light(seen.speed.lid) > light(seen.speed.floor) + 150, 'speed: bright under the lid, dark on the floor');
    // Pressure (blue below the mean, red above): high where the flow runs
    // into the right wall, low where it leaves the left.
    assert.ok(seen.pressure.topRight[0] > seen.pressure.topRight[2] + 60, 'pressure: high (red) in the top right corner');
    assert.ok(seen.pressure.topLeft[2] > seen.pressure.topLeft[0] + 60, 'pressure: low (blue) in the top left corner');
    // Vorticity (blue clockwise, red anticlockwise): the lid turns the water
    // under it clockwise; the floor's water hardly turns.
    assert.ok(seen.vorticity.lid[2] > seen.vorticity.lid[0] + 60, 'vorticity: clockwise (blue) under the lid');
    assert.ok(light(seen.vorticity.lid) > light(seen.vorticity.floor) + 100, 'vorticity: the floor is calm (dark)');
    assert.deepEqual(log.errors, []);
    await closeAll();
  });

  test('a drag through the stir tank stirs the dye and changes the state hash', { timeout: LONG * 4 }, async (t) => {
    const { page, log } = await openPage('scene=stir&embed=1&paused=1');
    await ready(page, 3);
    // The user's grid: auto quality leaves it alone.
    assert.equal(await page.evaluate(() => window.tidepool.setParam('grid', 128)), true);
    assert.equal(await page.evaluate(() => window.tidepool.pause(false)), true);
    const s0 = await advance(page, 6);
    const before = decodePng(await page.screenshot());
    const h0 = await page.evaluate(() => window.tidepool.hash());
    // A hand's stroke: across the middle band and back along a curve.
    const path2 = [[0.6, 1.5], [1.6, 2.2], [2.6, 1.5], [3.3, 0.8], [2.4, 0.6], [1.4, 1.0]].map(([x, y]) => toCanvas(s0, x, y));
    await page.mouse.move(path2[0].x, path2[0].y);
    await page.mouse.down();
    let most = 0, pointers = 0;
    for (let k = 1; k < path2.length; k++) {
      await page.mouse.move(path2[k].x, path2[k].y, { steps: 12 });
      const s = await stats(page);
      pointers = Math.max(pointers, s.pointers.length);
      for (const p of s.pointers) most = Math.max(most, p.affected);
    }
    await page.mouse.up();
    await until(page, () => window.tidepool.stats().pointers.length === 0, null, 'the force to end with the drag');
    const s1 = await advance(page, 18);
    const h1 = await page.evaluate(() => window.tidepool.hash());
    const after = decodePng(await page.screenshot({ path: path.join(shots, 'grid-stir.png') }));
    const moved = changed(before, after, s1, 0.3, 0.3, 3.7, 2.7);
    t.diagnostic(
      `before: max speed ${s0.maxSpeed.toFixed(4)} m/s, hash ${h0}; during: ${pointers} pointer, up to ${most} cells under it; ` +
        `after: max speed ${s1.maxSpeed.toFixed(3)} m/s, hash ${h1}, ${s1.solverIterations} projection iterations, ` +
        `max |div u| ${s1.maxDivergence.toExponential(2)} /s; ${(100 * moved).toFixed(1)} % of the tank's pixels changed colour`,
    );
    assert.ok(s0.maxSpeed < 1e-3, `the tank is at rest before the drag (${s0.maxSpeed})`);
    assert.equal(pointers, 1, 'the mouse is one pointer');
    assert.ok(most > 20, `the pointer covers fluid cells (${most})`);
    assert.ok(s1.maxSpeed > 0.05, `the drag set the fluid moving (${s1.maxSpeed} m/s)`);
    assert.notEqual(h1, h0, 'the state hash changed');
    assert.ok(moved > 0.05, `the dye moved on screen (${moved})`);
    assert.ok(s1.cells > 0 && Number.isFinite(s1.maxDivergence), 'stats report the grid');
    assert.equal(s1.cells, s0.cells, 'on the same grid throughout');
    assert.deepEqual(log.errors, []);
    await closeAll();
  });

  test('setParam, reset and scene changes work on a grid', { timeout: LONG * 3 }, async (t) => {
    // (A particle count given turns auto quality off, for the grids too.)
    const { page, log } = await openPage('scene=stir&embed=1&color=liquid&particles=1500');
    const s0 = await ready(page, 3);
    assert.equal(s0.quality.auto, false);
    // A particle-only colour and a particle count give way with a warning.
    assert.equal(s0.color, 'dye');
    assert.equal(s0.particles, 0);
    assert.ok(log.warnings.some((w) => w.includes('particles')), 'a warning names the ignored particle count');
    assert.equal(await page.evaluate(() => window.tidepool.setParam('grid', 48)), true);
    assert.equal(await page.evaluate(() => window.tidepool.setParam('advection', 'semi-lagrangian')), true);
    assert.equal(await page.evaluate(() => window.tidepool.setParam('reynolds', -1)), false, 'an invalid value is refused');
    const cells48 = cellsFor(s0, 48);
    await until(page, (n) => window.tidepool.stats().cells === n, cells48, 'the grid to refit to 48 cells along the longer side');
    // Reset keeps the changes; the dye starts over.
    assert.equal(await page.evaluate(() => window.tidepool.reset()), true);
    const s1 = await ready(page, 1);
    const grid = await page.evaluate(() => window.tidepool.info().params.find((p) => p.name === 'grid').value);
    assert.equal(grid, 48, 'reset keeps the parameter changes');
    await until(page, (n) => window.tidepool.stats().cells === n, cells48, 'the reset scene on the 48-cell grid');
    // To a particle scene and back: the colour follows the kind of scene.
    assert.equal(await page.evaluate(() => window.tidepool.reset('dam-break')), true);
    await until(page, () => window.tidepool.stats().particles > 0, null, 'dam-break particles');
    const s2 = await stats(page);
    assert.equal(s2.cells, 0);
    assert.equal(s2.color, 'liquid');
    assert.equal(await page.evaluate(() => window.tidepool.reset('smoke')), true);
    const s3 = await advance(page, 30);
    await page.screenshot({ path: path.join(shots, 'grid-smoke.png') });
    t.diagnostic(
      `stir at grid 48: time ${s1.time.toFixed(3)} s after reset; dam-break: ${s2.particles} particles, colour ${s2.color}; ` +
        `smoke: ${s3.cells} cells, colour ${s3.color}, max speed ${s3.maxSpeed.toFixed(3)} m/s`,
    );
    assert.equal(s3.scene, 'smoke');
    assert.equal(s3.color, 'dye');
    assert.equal(s3.cells, cellsFor(s3, 128), 'a new scene forgets the old one\'s grid change');
    assert.ok(s3.maxSpeed > 0.1, `smoke rises (${s3.maxSpeed} m/s)`);
    assert.deepEqual(log.errors, []);
    await closeAll();
  });
});
