// Rigid bodies on the page: the body tool drops a box that floats, a drag
// pulls a body and the water beside it goes along, bad input is refused
// with a warning, and a share link carries the bodies.
//
//   cd web && node --test --test-concurrency=1 tests/bodies.test.mjs
//
// Every page fixes its particle count (particles=N, or a link's), so auto
// quality is off, and starts paused: only tidepool.advance() moves the
// water, so nothing here depends on the machine's speed. The pool and float
// scenes run DFSPH (their preset, "water").
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import path from 'node:path';
import { decodePng } from './png.mjs';
import { advance, nextFrames, ready, shots, stats, toCanvas, until, useBrowser, watchPage } from './support.mjs';

const LONG = 90_000;
// A phone at DPR 1 (the touch bar is laid out in CSS pixels, and
// SwiftShader draws fewer pixels), its tilt off: gravity stays the scene's.
const PHONE = { viewport: { width: 390, height: 844 }, deviceScaleFactor: 1, hasTouch: true, isMobile: true };
// The same on its side: a shallow pool, whose DFSPH water lies stiller
// than a deep one's (the portrait pool's surface keeps moving a few cm).
const LANDSCAPE = { ...PHONE, viewport: { width: 844, height: 390 } };
const VIEW = { viewport: { width: 480, height: 300 } };
const POOL = 'scene=pool&particles=2000&paused=1&color=water&tilt=0';

const h = useBrowser();
const { closeAll } = h;

async function openPage(url, layout) {
  const context = await h.newContext(layout);
  const page = await context.newPage();
  const log = watchPage(page, h.server.url);
  await page.goto(new URL(url, h.server.url).href);
  return { context, page, log };
}

const bodies = (page) => page.evaluate(() => window.tidepool.bodies());
const tidepoolWarnings = (log) => log.warnings.filter((w) => /tidepool/.test(w));

// Picks `name` with the touch bar's tool button (it cycles).
async function pickTool(page, name) {
  for (let k = 0; k < 6 && (await stats(page)).tool !== name; k++) await page.tap('#tb-tool');
  assert.equal((await stats(page)).tool, name, `the touch bar reaches the ${name} tool`);
}

// Wood, as the renderer draws the bodies: warm, red over green over blue
// (the water is bluest, the obstacles a pale grey-beige, the tank dark).
function isWood(r, g, b) {
  return r > 120 && r > g + 30 && g > b + 20;
}

// The water's level: the mean height of a layer at rest is half its depth.
const level = (s) => s.box.min.y + 2 * (s.mean.y - s.box.min.y);

// The share of a box's area below the water line `level`: its outline
// (w x h, turned by `angle` about its centre) clipped to y <= level.
function submergedShare(b, w, h, level) {
  const c = Math.cos(b.angle), s = Math.sin(b.angle);
  const corners = [[-w, -h], [w, -h], [w, h], [-w, h]].map(([x, y]) =>
    [b.x + 0.5 * (x * c - y * s), b.y + 0.5 * (x * s + y * c)]);
  const below = [];
  for (let k = 0; k < 4; k++) {
    const p = corners[k], q = corners[(k + 1) % 4];
    if (p[1] <= level) below.push(p);
    if ((p[1] <= level) !== (q[1] <= level)) {
      const f = (level - p[1]) / (q[1] - p[1]);
      below.push([p[0] + f * (q[0] - p[0]), level]);
    }
  }
  let area = 0;
  for (let k = 0; k < below.length; k++) {
    const p = below[k], q = below[(k + 1) % below.length];
    area += p[0] * q[1] - q[0] * p[1];
  }
  return Math.abs(area) / 2 / (w * h);
}

// A body's samples over `frames` frames of advance(), `step` at a time.
async function track(page, id, frames, step) {
  const out = [];
  for (let k = 0; k < frames; k += step) {
    await page.evaluate((n) => window.tidepool.advance(n), step);
    out.push((await bodies(page)).find((b) => b.id === id));
  }
  return out;
}

describe('rigid bodies', { concurrency: 1 }, () => {
  test('(a) a tap with the body tool drops a box, which floats at the water line', { timeout: LONG * 3 }, async (t) => {
    const { page, log } = await openPage(`/?${POOL}`, LANDSCAPE);
    const s0 = await ready(page, 3);
    assert.equal(s0.bodies, 0, 'the pool starts without bodies');
    assert.equal(s0.solver, 'dfsph');
    await pickTool(page, 'body');
    // A tap in the air over the water, a third of the way along the tank.
    const w = s0.box.max.x - s0.box.min.x, hgt = s0.box.max.y - s0.box.min.y;
    const at = { x: s0.box.min.x + 0.35 * w, y: s0.box.min.y + 0.6 * hgt };
    const px = toCanvas(s0, at.x, at.y);
    await page.touchscreen.tap(px.x, px.y);
    await until(page, () => window.tidepool.stats().bodies === 1, null, 'the tap to drop a body');
    const [box] = await bodies(page);
    t.diagnostic(`tank ${w.toFixed(2)} x ${hgt.toFixed(2)} m; tap at (${at.x.toFixed(3)}, ${at.y.toFixed(3)}); dropped ${box.shape} ${box.id} at (${box.x.toFixed(3)}, ${box.y.toFixed(3)}), mass ${box.mass.toFixed(1)} kg/m`);
    assert.equal(box.shape, 'box', 'the first shape is a box');
    assert.ok(Math.hypot(box.x - at.x, box.y - at.y) < 0.02, 'dropped where the finger tapped');
    // Five simulated seconds: it falls, splashes and settles.
    await advance(page, 5 * 60);
    const settle = await track(page, box.id, 60, 6);
    const s1 = await stats(page);
    const ys = settle.map((b) => b.y), vys = settle.map((b) => b.vy);
    const last = settle[settle.length - 1];
    const water = level(s1);
    t.diagnostic(`t = ${s1.time.toFixed(2)} s: water level ${water.toFixed(3)} m; the box's centre over the last second ` +
      `${Math.min(...ys).toFixed(3)}..${Math.max(...ys).toFixed(3)} m, vy ${Math.min(...vys).toFixed(3)}..${Math.max(...vys).toFixed(3)} m/s, angle ${last.angle.toFixed(3)} rad; ` +
      `water near it ${last.water.particles} particles`);
    // Half as dense as the water (the body tool's box: 3 wide by 2 high,
    // input.cpp): by Archimedes half its area lies under the water line,
    // within 0.15, all through the last second (the still pool's own
    // motion rocks it by a centimetre or two), and it no longer sinks.
    const area = box.mass / box.density, bw = Math.sqrt(1.5 * area), bh = Math.sqrt(area / 1.5);
    const shares = settle.map((b) => submergedShare(b, bw, bh, water));
    t.diagnostic(`the box ${bw.toFixed(3)} x ${bh.toFixed(3)} m, ${box.density} kg/m^2; under the water line: ` +
      `${Math.min(...shares).toFixed(3)}..${Math.max(...shares).toFixed(3)} of its area`);
    for (const share of shares) assert.ok(Math.abs(share - 0.5) <= 0.15, `half the box under the water line (${share.toFixed(3)})`);
    const meanVy = vys.reduce((a, b) => a + b, 0) / vys.length;
    assert.ok(Math.abs(meanVy) < 0.05, `it has stopped sinking: mean vy ${meanVy} m/s over the last second`);
    assert.ok(ys[ys.length - 1] - ys[0] > -0.03, 'it ends the last second no more than 3 cm lower');
    assert.ok(last.water.particles > 0, 'it sits in the water');
    // The next tap drops the next shape in turn.
    const px2 = toCanvas(s1, s1.box.min.x + 0.75 * w, s1.box.min.y + 0.7 * hgt);
    await page.touchscreen.tap(px2.x, px2.y);
    await until(page, () => window.tidepool.stats().bodies === 2, null, 'the second tap to drop a body');
    assert.deepEqual((await bodies(page)).map((b) => b.shape), ['box', 'disc'], 'then a disc');
    assert.deepEqual(log.errors, []);
    assert.deepEqual(tidepoolWarnings(log), []);
    await closeAll();
  });

  test('(b) a dragged body moves, and the water beside it moves the same way', { timeout: LONG * 3 }, async (t) => {
    const { page, log } = await openPage(`/?${POOL}`, VIEW);
    const s0 = await ready(page, 3);
    const w = s0.box.max.x - s0.box.min.x;
    const x0 = s0.box.min.x + 0.35 * w;
    // Dropped from just above the water.
    const id = await page.evaluate(([x, y]) => window.tidepool.addBody(`box,0.3,0.2,500,${x},${y}`), [x0, level(s0) + 0.2]);
    assert.ok(id >= 0, 'addBody gives an id');
    await advance(page, 3 * 60);
    // Right, then back left, its target moved along at 1.2 m/s as a hand
    // would: the body follows it, and the water beside it (within three
    // particle spacings of its outline) takes up its motion.
    const runs = [];
    for (const dx of [0.8, -0.8]) {
      const start = (await bodies(page)).find((b) => b.id === id);
      const samples = [];
      for (let k = 1; k <= 20; k++) {
        const ok = await page.evaluate(([i, x, y]) => window.tidepool.dragBody(i, x, y) && window.tidepool.advance(2), [id, start.x + (dx * k) / 20, start.y]);
        assert.equal(ok, true, 'dragBody and advance');
        if (k % 2 === 0) samples.push((await bodies(page)).find((b) => b.id === id));
      }
      const end = samples[samples.length - 1];
      // From the second sample on: the water takes a moment to turn round.
      const moving = samples.slice(1).filter((b) => Math.abs(b.vx) > 0.1);
      const along = moving.filter((b) => Math.sign(b.water.vx) === Math.sign(dx)).length;
      const meanWater = samples.reduce((sum, b) => sum + b.water.vx, 0) / samples.length;
      runs.push({ dx, start, end, moving: moving.length, along, meanWater, dragged: samples[0].dragged });
      // Let go, and let the water calm down before the next drag.
      assert.equal(await page.evaluate((i) => window.tidepool.releaseBody(i), id), true);
      await advance(page, 60);
      t.diagnostic(`drag ${dx > 0 ? 'right' : 'left'} ${Math.abs(dx)} m: x ${start.x.toFixed(3)} -> ${end.x.toFixed(3)} m in 0.67 s; ` +
        `body vx every 1/15 s ${samples.map((b) => b.vx.toFixed(2)).join(' ')}; water vx ${samples.map((b) => b.water.vx.toFixed(2)).join(' ')} ` +
        `(${samples[0].water.particles} particles near it)`);
    }
    for (const r of runs) {
      const sign = Math.sign(r.dx);
      assert.equal(r.dragged, true, 'the body is held while dragged');
      assert.ok(sign * (r.end.x - r.start.x) > 0.3, `the body moves ${r.dx > 0 ? 'right' : 'left'} (${r.start.x} -> ${r.end.x})`);
      assert.ok(r.moving >= 5, 'it moves for a while');
      // The water beside a body turns over as it passes (ahead pushed on,
      // behind drawn in): most samples, and the mean, go the body's way.
      assert.ok(r.along >= Math.ceil((2 * r.moving) / 3), `while it moves, the water beside it moves the same way (${r.along} of ${r.moving})`);
      assert.ok(sign * r.meanWater > 0, 'and on the whole');
    }
    assert.equal((await bodies(page))[0].dragged, false, 'released');
    assert.deepEqual(log.errors, []);
    assert.deepEqual(tidepoolWarnings(log), []);
    await closeAll();
  });

  test('(b) with the body tool, a finger that lands on a body drags it and lets go when lifted', { timeout: LONG * 3 }, async (t) => {
    const { context, page, log } = await openPage(`/?${POOL}`, PHONE);
    const s0 = await ready(page, 3);
    await pickTool(page, 'body');
    const w = s0.box.max.x - s0.box.min.x;
    const id = await page.evaluate(([x, y]) => window.tidepool.addBody(`box,0.3,0.2,500,${x},${y}`), [s0.box.min.x + 0.3 * w, level(s0) + 0.2]);
    const s1 = await advance(page, 2 * 60);
    const start = (await bodies(page))[0];
    const cdp = await context.newCDPSession(page);
    const finger = (x, y) => [{ ...toCanvas(s1, x, y), id: 1 }];
    await cdp.send('Input.dispatchTouchEvent', { type: 'touchStart', touchPoints: finger(start.x, start.y) });
    await nextFrames(page, 2);
    const held = (await bodies(page))[0];
    // Along 0.6 m to the right, the water stepping on at each move.
    for (let k = 1; k <= 10; k++) {
      await cdp.send('Input.dispatchTouchEvent', { type: 'touchMove', touchPoints: finger(start.x + 0.06 * k, start.y) });
      await nextFrames(page, 1);
      await page.evaluate(() => window.tidepool.advance(6));
    }
    await page.evaluate(() => window.tidepool.advance(30));
    const moved = (await bodies(page))[0];
    await cdp.send('Input.dispatchTouchEvent', { type: 'touchEnd', touchPoints: [] });
    await nextFrames(page, 2);
    const after = await page.evaluate(() => ({ bodies: window.tidepool.bodies(), stats: window.tidepool.stats() }));
    t.diagnostic(`x ${start.x.toFixed(3)} -> ${moved.x.toFixed(3)} m; held ${held.dragged}, after the finger lifts ${after.bodies[0].dragged}; bodies ${after.stats.bodies}`);
    assert.equal(id, start.id);
    assert.equal(held.dragged, true, 'the finger holds the body');
    assert.ok(moved.x - start.x > 0.35, `the body follows the finger (${start.x} -> ${moved.x})`);
    assert.equal(after.bodies[0].dragged, false, 'and is let go with it');
    assert.equal(after.stats.bodies, 1, 'a drag drops nothing');
    assert.deepEqual(log.errors, []);
    assert.deepEqual(tidepoolWarnings(log), []);
    await closeAll();
  });

  test('bad bodies are refused with a warning naming the problem, and nothing changes', { timeout: LONG * 2 }, async (t) => {
    const { page, log } = await openPage(`/?${POOL}`, VIEW);
    await ready(page, 3);
    const id = await page.evaluate(() => window.tidepool.addBody('disc,0.12,800,1,2'));
    assert.ok(id >= 0);
    const before = await page.evaluate(() => ({ hash: window.tidepool.hash(), bodies: window.tidepool.bodies() }));
    const cases = [
      ['addBody', ['box,1'], -1, /expected box,WIDTH,HEIGHT,DENSITY,X,Y/],
      ['addBody', ['triangle,1,2,3,4'], -1, /the shape is box, disc, boat or polygon/],
      ['addBody', ['disc,0.1,lots,1,1'], -1, /'lots' is not a number/],
      ['addBody', ['box,0.3,0.2,500,99,1'], -1, /outside the tank/],
      ['addBody', ['box,0.3,0.2,1e9,1,1'], -1, /density/],
      ['addBody', ['disc,5,500,1,1'], -1, /this tank takes at most/],
      ['addBody', [42], -1, /addBody\(spec: string/],
      ['removeBody', [id + 1000], false, /no body/],
      ['removeBody', ['x'], false, /removeBody\(id: whole number\)/],
      ['dragBody', [id + 1000, 1, 1], false, /no body/],
      ['dragBody', [id, NaN, 1], false, /dragBody\(id: whole number, x: number, y: number\)/],
      ['releaseBody', [id + 1000], false, /no body/],
    ];
    for (const [fn, args, expected, warning] of cases) {
      const seen = log.warnings.length;
      const got = await page.evaluate(([f, a]) => window.tidepool[f](...a), [fn, args]);
      const said = log.warnings.slice(seen).join(' | ');
      t.diagnostic(`${fn}(${args.map((a) => JSON.stringify(a)).join(', ')}) -> ${got}: ${said}`);
      assert.equal(got, expected, `${fn} refuses ${JSON.stringify(args)}`);
      assert.match(said, warning);
    }
    const after = await page.evaluate(() => ({ hash: window.tidepool.hash(), bodies: window.tidepool.bodies() }));
    assert.deepEqual(after, before, 'the state is kept');
    assert.deepEqual(log.errors, []);
    await closeAll();
  });

  test('(c) a share link carries the bodies in flight, whole: their pose, velocities and material, a polygon too; two pages opening it give the same hash after advance(90)', { timeout: LONG * 4 }, async (t) => {
    const a = await openPage(`/?${POOL.replace('2000', '1500')}`, VIEW);
    const s0 = await ready(a.page, 3);
    const w = s0.box.max.x - s0.box.min.x;
    // A box of the default material, a disc of its own (friction 0.7,
    // restitution 0.4) and a polygon, which an older link dropped.
    const ids = await a.page.evaluate(([x1, x2, x3, y]) => [
      window.tidepool.addBody(`box,0.3,0.2,500,${x1},${y}`),
      window.tidepool.addBody(`disc,0.12,800,${x2},${y},0,0,0,0,0.7,0.4`),
      window.tidepool.addBody(`polygon,600,${x3},${y},0.3,0,0,0,0.2,0.3,-0.1,-0.08,0.12,-0.06,0.02,0.1`),
    ], [s0.box.min.x + 0.25 * w, s0.box.min.x + 0.55 * w, s0.box.min.x + 0.8 * w, level(s0) + 0.4]);
    assert.ok(ids.every((id) => id >= 0), 'the three bodies added');
    await advance(a.page, 30);  // in flight: the link takes them as they are now
    const shared = await bodies(a.page);
    const link = await a.page.evaluate(() => window.tidepool.shareLink());
    t.diagnostic(`link: ${link}`);
    const hash = new URL(link).hash;
    const n = '[-\\d.e]+';
    assert.match(hash, new RegExp(`&bodies=box,0\\.3,0\\.2,500(,${n}){6},0\\.3,0\\.1;disc,0\\.12,800(,${n}){6},0\\.7,0\\.4;polygon,600(,${n}){6},0\\.2,0\\.3(,${n}){6}(&|$)`));
    assert.ok(shared.every((b) => Math.hypot(b.vx, b.vy) > 0.1), `every body in flight (${shared.map((b) => Math.hypot(b.vx, b.vy).toFixed(2)).join(', ')} m/s)`);

    const pages = [];
    for (let k = 0; k < 2; k++) {
      const p = await openPage(link.replace('#', '?paused=1#'), VIEW);
      await ready(p.page, 3);
      pages.push(p);
    }
    const results = [];
    for (const p of pages) {
      const start = await p.page.evaluate(() => ({ stats: window.tidepool.stats(), bodies: window.tidepool.bodies(), hash: window.tidepool.hash() }));
      assert.equal(start.stats.scene, 'pool');
      // A body given at the load displaces the water it stands in
      // (scenes.cpp): the link's page holds the shared water less what lies
      // under its bodies (the pages agree: their hashes, below).
      assert.ok(start.stats.particles < s0.particles && start.stats.particles > 0.9 * s0.particles,
        `${start.stats.particles} particles from the ${s0.particles} shared, less the bodies' displacement`);
      assert.deepEqual(start.bodies.map((b) => b.shape), ['box', 'disc', 'polygon'], 'the link\'s bodies, in order');
      // Before a step: each body as the sharer's page had it, to the digit.
      const whole = (b) => ({ shape: b.shape, x: b.x, y: b.y, angle: b.angle, vx: b.vx, vy: b.vy, omega: b.omega,
        mass: b.mass, friction: b.friction, restitution: b.restitution });
      assert.deepEqual(start.bodies.map(whole), shared.map(whole), 'pose, velocities, mass and material as shared');
      const after = await p.page.evaluate(() => (window.tidepool.advance(90), { hash: window.tidepool.hash(), bodies: window.tidepool.bodies() }));
      results.push({ start, after });
    }
    t.diagnostic(`start ${results.map((r) => r.start.hash).join(' / ')}; after advance(90) ${results.map((r) => r.after.hash).join(' / ')}; ` +
      `bodies at (${results[0].after.bodies.map((b) => `${b.x.toFixed(3)}, ${b.y.toFixed(3)}`).join('), (')})`);
    assert.equal(results[1].start.hash, results[0].start.hash, 'the same state at the start');
    assert.notEqual(results[0].after.hash, results[0].start.hash, 'the water and the bodies moved');
    assert.equal(results[1].after.hash, results[0].after.hash, 'the same hash after advance(90)');
    assert.deepEqual(results[1].after.bodies, results[0].after.bodies);
    // A reset brings the link's bodies back, not the scene's none.
    assert.equal(await pages[0].page.evaluate(() => (window.tidepool.reset(), window.tidepool.stats().bodies)), 3);
    for (const { log } of [a, ...pages]) {
      assert.deepEqual(log.errors, []);
      assert.deepEqual(log.outside, []);
      assert.deepEqual(tidepoolWarnings(log), []);
    }
    await closeAll();
  });

  test('(c) a link from the float scene carries its bodies in place of the scene\'s own; bad link bodies are warned about', { timeout: LONG * 3 }, async (t) => {
    const a = await openPage('/?scene=float&particles=1500&paused=1&color=water', VIEW);
    await ready(a.page, 3);
    await advance(a.page, 60);
    assert.equal(await a.page.evaluate(() => window.tidepool.removeBody(window.tidepool.bodies()[0].id)), true);
    const link = await a.page.evaluate(() => window.tidepool.shareLink());
    const b = await openPage(link.replace('#', '?paused=1#'), VIEW);
    await ready(b.page, 3);
    const got = await bodies(b.page);
    t.diagnostic(`link: ${link}; opened with ${got.map((x) => x.shape).join(', ')}`);
    assert.deepEqual(got.map((x) => x.shape), ['disc', 'box'], 'the two left, not the scene\'s three as well');
    for (const { log } of [a, b]) {
      assert.deepEqual(log.errors, []);
      assert.deepEqual(tidepoolWarnings(log), []);
    }
    const cases = [
      ['#tp=1&scene=pool&bodies=box:1:2', /a body is malformed/, 0],
      ['#tp=1&scene=pool&bodies=cube:1:2:3:4:5', /a body is malformed/, 0],
      ['#tp=1&scene=pool&bodies=disc:0.1:800:1:x', /a body has a bad number/, 0],
      ['#tp=1&scene=pool&bodies=disc:0.1:99999:1:1,disc:0.1:800:1:1.5', /link body ignored: .*density/, 1],
    ];
    for (const [hash, warning, count] of cases) {
      const { page, log } = await openPage(`/?particles=1500&paused=1&color=water${hash}`, VIEW);
      const s = await ready(page, 3);
      const seen = log.warnings.filter((w) => warning.test(w));
      t.diagnostic(`${hash} -> ${s.bodies} bodies; warning: ${seen[0] || '(none)'}`);
      assert.ok(seen.length > 0, `a warning for ${hash}`);
      assert.equal(s.bodies, count);
      assert.deepEqual(log.errors, []);
    }
    await closeAll();
  });

  // The float scene as a person meets it, in the liquid view: a phone
  // upright (DPR 2) and a desktop window. The pictures go to
  // web/screenshots/float-*.png.
  for (const [name, layout] of [
    ['phone', { ...PHONE, deviceScaleFactor: 2 }],
    ['desktop', { viewport: { width: 1280, height: 800 }, deviceScaleFactor: 1 }],
  ]) {
    test(`the float scene on a ${name}: each body is drawn in wood, over the water`, { timeout: LONG * 3 }, async (t) => {
      const { page, log } = await openPage('/?scene=float&particles=4000&paused=1&tilt=0', layout);
      await ready(page, 3);
      await advance(page, 150);
      // The page's frames stopped: the picture is the frame stats() describes.
      await page.evaluate(() => window.Module.pauseMainLoop());
      const s = await stats(page);
      const list = await bodies(page);
      const file = path.join(shots, `float-${name}.png`);
      const png = decodePng(await page.screenshot({ path: file }));
      const ratio = png.width / layout.viewport.width;
      const found = list.map((b) => {
        // The wood's share of the pixels within half the body's reach of its
        // centroid (inside each shape, whatever its angle).
        const reach = b.shape === 'disc' ? 0.2 : b.shape === 'box' ? 0.5 * Math.hypot(0.35, 0.25) : 0.25;
        const c = toCanvas(s, b.x, b.y), r = 0.5 * reach * s.view.scale;
        let wood = 0, all = 0;
        for (let y = Math.ceil((c.y - r) * ratio); y < (c.y + r) * ratio; y++) {
          for (let x = Math.ceil((c.x - r) * ratio); x < (c.x + r) * ratio; x++) {
            if (Math.hypot(x / ratio - c.x, y / ratio - c.y) > r) continue;
            const o = (y * png.width + x) * 4;
            all++;
            if (isWood(png.data[o], png.data[o + 1], png.data[o + 2])) wood++;
          }
        }
        return { ...b, wood: all ? wood / all : 0 };
      });
      t.diagnostic(`${name} ${png.width}x${png.height}: ${s.particles} particles, t = ${s.time.toFixed(2)} s; ` +
        found.map((b) => `${b.shape} at (${b.x.toFixed(2)}, ${b.y.toFixed(2)}) angle ${b.angle.toFixed(2)}: ${(100 * b.wood).toFixed(0)} % wood`).join('; ') + `; ${file}`);
      assert.equal(found.length, 3, 'the float scene has three bodies');
      // The disc's hub and spoke are dark: most, not all, of its middle is wood.
      for (const b of found) assert.ok(b.wood > 0.6, `the ${b.shape} is drawn in wood (${b.wood})`);
      assert.deepEqual(log.errors, []);
      await closeAll();
    });
  }
});
