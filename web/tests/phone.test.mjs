// The toy as a person meets it on a phone and on a desktop: the tank fills
// the screen, the water looks like water, the touch bar's controls work,
// and the page picks a particle count the device can hold.
//
//   node --test web/tests/phone.test.mjs
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import path from 'node:path';
import { decodePng } from './png.mjs';
import { advance, nextFrames, shots, simulate, stats, stepFrame, toCanvas, watchPage, waterFraction, ready, until, useBrowser } from './support.mjs';

const LONG = 90_000;
const FEW = 'particles=1500';
// The particle view draws in a fraction of the liquid view's time: the pages
// whose checks read no pixels use it, and run more frames.
const PLAIN = 'color=water';

// The three layouts of the issue: a phone upright and on its side (DPR 3,
// touch), and a desktop window.
const LAYOUTS = [
  { name: 'phone', viewport: { width: 390, height: 844 }, deviceScaleFactor: 3, hasTouch: true, isMobile: true },
  { name: 'landscape', viewport: { width: 844, height: 390 }, deviceScaleFactor: 3, hasTouch: true, isMobile: true },
  { name: 'desktop', viewport: { width: 1280, height: 800 }, deviceScaleFactor: 1, hasTouch: false, isMobile: false },
];

const h = useBrowser();
const { closeAll } = h;

async function openPage(query, layout) {
  const { name, ...options } = layout;
  const context = await h.newContext(options);
  const page = await context.newPage();
  const log = watchPage(page, h.server.url);
  await page.goto(new URL(`/?${query}`, h.server.url).href);
  return { context, page, log };
}

// Stops the page's frames (Emscripten's main loop) and returns the stats of
// the last one, which stays on the screen: a screenshot then shows what
// stats() describes, and need not wait for the liquid view's slow frames.
async function hold(page) {
  await page.evaluate(() => window.Module.pauseMainLoop());
  return stats(page);
}

// The tank's rectangle in CSS pixels.
function tankRect(s) {
  const a = toCanvas(s, s.box.min.x, s.box.max.y), b = toCanvas(s, s.box.max.x, s.box.min.y);
  return { x0: a.x, y0: a.y, x1: b.x, y1: b.y, area: (b.x - a.x) * (b.y - a.y) };
}

describe('the toy on phones and desktops', { concurrency: 1 }, () => {
  for (const layout of LAYOUTS) {
    test(`${layout.name}: the tank fills the screen less the controls, and the settled water covers its share`, { timeout: LONG * 3 }, async (t) => {
      const { page, log } = await openPage(`scene=dam-break&${FEW}`, layout);
      await ready(page, 1);
      // The water settled, and the page held still: the layout, the stats and
      // the screenshot are all of one drawn frame.
      await advance(page, 6 * 60);
      const s = await hold(page);
      // What the controls take: the touch bar (the DOM's), or the docked panel.
      const bar = await page.evaluate(() => {
        const b = document.getElementById('touchbar');
        if (b.hidden) return null;
        const r = b.getBoundingClientRect();
        return { x0: r.left, y0: r.top, x1: r.right, y1: r.bottom };
      });
      const vw = layout.viewport.width, vh = layout.viewport.height;
      let free = vw * vh;
      if (layout.hasTouch) {
        assert.ok(bar, 'a touch screen has the touch bar');
        free -= (bar.x1 - bar.x0) * (bar.y1 - bar.y0);
      } else {
        assert.equal(bar, null, 'a desktop has no touch bar');
        const panel = s.view.room.x0;
        assert.ok(panel > 100 && panel < 0.35 * vw, `the panel is docked at the side (${panel} px)`);
        free -= panel * vh;
      }
      const tank = tankRect(s);
      const coverage = tank.area / free;
      // The drawing buffer: the device's pixel ratio, at most 2.
      const ratio = await page.evaluate(() => document.getElementById('canvas').width / document.getElementById('canvas').clientWidth);
      assert.ok(Math.abs(ratio - Math.min(layout.deviceScaleFactor, 2)) < 0.01, `drawing buffer at ${ratio}x the CSS size`);
      // The water is never under the controls.
      if (bar) {
        const overlap = Math.max(0, Math.min(tank.x1, bar.x1) - Math.max(tank.x0, bar.x0)) *
          Math.max(0, Math.min(tank.y1, bar.y1) - Math.max(tank.y0, bar.y0));
        assert.equal(overlap, 0, 'the tank is clear of the touch bar');
      } else {
        assert.ok(tank.x0 >= s.view.room.x0, 'the tank is clear of the panel');
      }
      // The settled water's pixels in the liquid view.
      assert.equal(s.color, 'liquid', 'the liquid view is the default');
      const file = path.join(shots, `${layout.name}.png`);
      // In CSS pixels, as stats().view maps the world (the phones have DPR 3).
      const png = decodePng(await page.screenshot({ path: file, scale: 'css' }));
      const water = waterFraction(png, s, s.box.min.x, s.box.min.y, s.box.max.x, s.box.max.y);
      // The column (1 x 2 of a 4 x 3 tank, stretched with its area) is a
      // sixth of the tank, whatever its shape.
      const share = 2 / 12;
      const aspect = (s.box.max.x - s.box.min.x) / (s.box.max.y - s.box.min.y);
      t.diagnostic(
        `${layout.name} ${vw}x${vh}: tank ${(tank.x1 - tank.x0).toFixed(0)}x${(tank.y1 - tank.y0).toFixed(0)} CSS px ` +
          `(aspect ${aspect.toFixed(3)}, drawn at ${ratio.toFixed(2)}x) covers ${(100 * coverage).toFixed(1)} % of the screen less the controls; ` +
          `settled water ${(100 * water.fraction).toFixed(1)} % of the tank (volume ${(100 * share).toFixed(1)} %); ${file}`,
      );
      assert.ok(coverage >= 0.85, `the tank covers at least 85 % (${coverage})`);
      assert.ok(Math.abs(water.fraction / share - 1) <= 0.15, `the water covers its volume's share within 15 % (${water.fraction})`);
      if (layout.name === 'phone') assert.ok(aspect < 0.75, 'a portrait tank on a portrait phone');
      if (layout.name === 'landscape') assert.ok(aspect > 1.5, 'a landscape tank on a phone on its side');
      assert.deepEqual(log.errors, []);
      await closeAll();
    });
  }

  test('turning the phone lays the tank out again and keeps the water', { timeout: LONG * 3 }, async (t) => {
    const { page, log } = await openPage(`scene=dam-break&${FEW}&${PLAIN}`, LAYOUTS[0]);
    await ready(page, 3);
    const s0 = await advance(page, 60);
    await page.setViewportSize({ width: 844, height: 390 });
    await until(page, () => window.tidepool.stats().aspect > 1.5, null, 'the tank to turn', LONG);
    const s1 = await stats(page);
    const s2 = await advance(page, 90);
    const area = (s) => (s.box.max.x - s.box.min.x) * (s.box.max.y - s.box.min.y);
    t.diagnostic(
      `portrait aspect ${s0.aspect.toFixed(3)} -> landscape ${s1.aspect.toFixed(3)}; particles ${s0.particles} -> ` +
        `${s1.particles}; tank area ${area(s0).toFixed(3)} -> ${area(s1).toFixed(3)} m^2; time ${s0.time.toFixed(2)} -> ` +
        `${s2.time.toFixed(2)} s; mean (${s1.mean.x.toFixed(2)}, ${s1.mean.y.toFixed(2)}) -> (${s2.mean.x.toFixed(2)}, ${s2.mean.y.toFixed(2)})`,
    );
    assert.equal(s1.particles, s0.particles, 'no particle lost');
    assert.ok(Math.abs(area(s1) / area(s0) - 1) < 1e-3, 'the tank keeps its area');
    assert.ok(s2.time > s0.time, 'no reset: time goes on');
    assert.ok(s2.mean.y < s1.mean.y, 'the water falls to the new floor');
    assert.deepEqual(log.errors, []);
    await closeAll();
  });

  test('touch bar: every control works from a tap, and two fingers on the water still move it', { timeout: LONG * 4 }, async (t) => {
    // A phone at DPR 1: the bar is laid out in CSS pixels, and SwiftShader
    // draws a ninth of the pixels.
    const { context, page, log } = await openPage(`scene=dam-break&${FEW}&${PLAIN}`, { ...LAYOUTS[0], deviceScaleFactor: 1 });
    await ready(page, 3);
    const tap = async (id) => {
      await page.tap(`#${id}`);
      return stats(page);
    };
    // Each target is at least 44 CSS px each way.
    const sizes = await page.evaluate(() => Array.from(document.querySelectorAll('#touchbar > :not([hidden])'), (b) => {
      const r = b.getBoundingClientRect();
      return [b.id, Math.round(r.width), Math.round(r.height)];
    }));
    t.diagnostic(`targets: ${sizes.map(([id, w, h]) => `${id} ${w}x${h}`).join(', ')}`);
    assert.ok(sizes.length >= 7, 'scene, play, reset, tool, method, share and settings at least');
    for (const [id, w, h] of sizes) assert.ok(w >= 44 && h >= 44, `${id} is at least 44 x 44 CSS px (${w} x ${h})`);

    assert.equal((await tap('tb-play')).paused, true, 'pause');
    assert.equal((await tap('tb-play')).paused, false, 'play');
    await advance(page, 18);
    const reset = await tap('tb-reset');
    assert.ok(reset.time < 0.2, `reset starts over (t = ${reset.time})`);
    const tools = [];
    for (let k = 0; k < 5; k++) tools.push((await tap('tb-tool')).tool);
    assert.deepEqual(tools, ['pull', 'draw', 'erase', 'body', 'push'], 'the tool cycles');
    // The liquid's method, one tap each: the same water goes on under the next.
    const methods = [reset.solver];
    for (let k = 0; k < 3; k++) {
      const before = await advance(page, 6);
      const after = await tap('tb-solver');
      methods.push(after.solver);
      // From FLIP the water is laid on SPH's lattice again (World::set_params):
      // its spray and bunched particles become the liquid's area in lattice points.
      if (before.solver === 'flip') {
        assert.ok(Math.abs(after.particles - before.particles) <= 0.1 * before.particles,
          `about the same water (${before.particles} -> ${after.particles} particles)`);
      } else {
        assert.equal(after.particles, before.particles, 'the same particles');
      }
      assert.ok(after.time >= before.time, 'no reset: time goes on');
      assert.equal(await page.textContent('#tb-solver span'), { flip: 'FLIP', dfsph: 'DFSPH', muller2003: 'Müller' }[after.solver]);
    }
    assert.deepEqual(methods, ['flip', 'dfsph', 'muller2003', 'flip'], 'FLIP by default, then DFSPH, Müller and FLIP');
    // Tilt starts on (waiting for the sensor's first reading) on a phone.
    const tiltBefore = await page.getAttribute('#tb-tilt', 'aria-pressed');
    const tilted = await tap('tb-tilt');
    const tiltAfter = await page.getAttribute('#tb-tilt', 'aria-pressed');
    assert.deepEqual([tiltBefore, tiltAfter, tilted.tilt], ['true', 'false', false], 'tilt switches off');
    assert.equal((await tap('tb-tilt')).tilt, false, 'on again, it waits for a reading');
    assert.equal(await page.getAttribute('#tb-tilt', 'aria-pressed'), 'true');
    assert.equal((await tap('tb-more')).panelOpen, true, 'settings open the panel');
    assert.equal((await tap('tb-more')).panelOpen, false, 'and fold it');
    await page.selectOption('#tb-scene select', 'drop');
    await until(page, () => window.tidepool.stats().scene === 'drop', null, 'the scene to change');
    await page.tap('#tb-share');
    await until(page, () => !document.getElementById('toast').hidden, null, 'the share toast');
    const toast = await page.textContent('#toast');
    assert.match(toast, /#tp=2&scene=drop/, 'share gives a link to this setup');
    const download = page.waitForEvent('download');
    await page.tap('#toast-picture');
    const file = await download;
    assert.match(file.suggestedFilename(), /^tidepool-drop\.png$/);

    // Two fingers on the water, sweeping right: two forces, and the water
    // under each follows its finger.
    const s0 = await advance(page, 30);
    const cdp = await context.newCDPSession(page);
    const w = s0.box.max.x - s0.box.min.x;
    const yWater = s0.box.min.y + 0.15 * (s0.box.max.y - s0.box.min.y);
    const fingers = (k) => [
      { ...toCanvas(s0, (0.1 + 0.3 * k) * w, yWater), id: 1 },
      { ...toCanvas(s0, (0.6 + 0.3 * k) * w, yWater), id: 2 },
    ];
    await cdp.send('Input.dispatchTouchEvent', { type: 'touchStart', touchPoints: fingers(0) });
    let most = 0;
    const following = [0, 0];  // frames in which the water under finger k moved right
    for (let i = 1; i <= 30; i++) {
      await cdp.send('Input.dispatchTouchEvent', { type: 'touchMove', touchPoints: fingers(i / 30) });
      const p = (await stats(page)).pointers;
      most = Math.max(most, p.length);
      p.forEach((f, k) => { if (k < 2 && f.affected > 0 && f.vx > 0.05) following[k]++; });
    }
    await cdp.send('Input.dispatchTouchEvent', { type: 'touchEnd', touchPoints: [] });
    // The next frame reads the lifted fingers.
    const s1 = await ready(page, (await stats(page)).frame + 1);
    t.diagnostic(`tilt ${tiltBefore} -> ${tiltAfter}; two fingers: ${most} forces at once; frames with the water under each ` +
      `finger moving right: ${following.join(' and ')} of 30; forces after: ${s1.pointers.length}`);
    assert.equal(most, 2, 'two fingers, two forces');
    assert.ok(following[0] >= 5 && following[1] >= 5, 'the water under each finger follows it');
    assert.equal(s1.pointers.length, 0, 'the forces end with the touches');
    assert.deepEqual(log.errors, []);
    await closeAll();
  });

  // The auto-quality pages run at the count the page picks (no ?particles=),
  // and make their own load: a 4x slower CPU. They check the direction of
  // each change, never how fast it comes.
  const SMALL = { name: 'small', viewport: { width: 480, height: 360 }, deviceScaleFactor: 1, hasTouch: false };

  test('auto quality: the count drops under a 4x slower CPU until the simulation fits its budget, and rises again', { timeout: LONG * 5 }, async (t) => {
    const { context, page, log } = await openPage(`scene=dam-break&embed=1&${PLAIN}`, SMALL);
    await ready(page, 3);
    await until(page, () => window.tidepool.stats().quality.medianMs > 0, null, 'the first judged second', LONG);
    const start = await stats(page);
    assert.equal(start.quality.auto, true, 'on unless ?particles= fixes the count');
    const cdp = await context.newCDPSession(page);
    await cdp.send('Emulation.setCPUThrottlingRate', { rate: 4 });
    const throttledAt = Date.now();
    // Wait until a judged second after the drop is within the budget.
    await until(page, (n) => {
      const s = window.tidepool.stats();
      return s.particles < 0.9 * n && s.quality.medianMs > 0 && s.quality.medianMs <= s.quality.budgetMs &&
        s.quality.reason.startsWith('too slow');
    }, start.particles, 'a lower count within the budget', LONG * 2);
    const within = (Date.now() - throttledAt) / 1000;
    const low = await stats(page);
    await cdp.send('Emulation.setCPUThrottlingRate', { rate: 1 });
    await until(page, (n) => window.tidepool.stats().particles > 1.1 * n, low.particles, 'the count to rise again', LONG * 2);
    const high = await stats(page);
    t.diagnostic(
      `start ${start.particles} particles (${start.quality.medianMs.toFixed(2)} ms a tick); 4x throttled: ${low.particles} ` +
        `after ${within.toFixed(1)} s, median ${low.quality.medianMs.toFixed(2)} ms a tick (in motion ${low.quality.costMs.toFixed(2)} ms) of ${low.quality.budgetMs} ms ("${low.quality.reason}"); ` +
        `unthrottled: ${high.particles} ("${high.quality.reason}")`,
    );
    assert.ok(low.particles < start.particles, 'fewer particles on a slower CPU');
    assert.ok(high.particles > low.particles, 'more again with the CPU back');
    assert.match(high.quality.reason, /headroom/);
    // A count fixed by hand stays.
    const fixed = await openPage(`scene=dam-break&embed=1&particles=900`, SMALL);
    const f = await ready(fixed.page, 3);
    assert.equal(f.quality.auto, false, '?particles= turns it off');
    assert.deepEqual(log.errors, []);
    await closeAll();
  });

  test('auto quality keeps the water: a change of method resizes the count at once, time goes on, the water stays where it was, and a drawn disc stays', { timeout: LONG * 3 }, async (t) => {
    // The count changes in place (the water resampled), never by loading
    // the scene again, which would start time over and put the water back
    // in its column. The change is made by a change of method, which auto
    // quality answers at once and at any page speed (quality.h: FLIP holds
    // kFlipPerSph times SPH's count on the same budget): DFSPH at an eighth
    // of FLIP's count, then FLIP at eight times DFSPH's.
    const { page, log } = await openPage(`scene=dam-break&embed=1&${PLAIN}`, SMALL);
    await ready(page, 3);
    assert.ok((await page.evaluate(() => window.tidepool.addObstacle({ x: 3.0, y: 2.2, radius: 0.1 }))) >= 0);
    // A pool nearly at rest: its centre of mass hardly moves from one frame
    // to the next.
    const start = await advance(page, 10 * 60);
    assert.equal(start.quality.auto, true);
    assert.equal(start.solver, 'flip');
    // From here on, every frame's count, time, centre of mass and obstacles;
    // kept are the frames either side of each change of count, and the one
    // before them (how far the water moves by itself in a frame).
    await page.evaluate(() => {
      const changes = (window.countChanges = []);
      let prev = null, last = null;
      const look = () => {
        const s = window.tidepool.stats();
        const now = { frame: s.frame, particles: s.particles, time: s.time, mean: s.mean, obstacles: s.obstacles, solver: s.solver };
        if (last && now.frame !== last.frame) {
          if (now.particles !== last.particles) changes.push({ prev, before: last, after: now });
          prev = last;
        }
        last = now;
        requestAnimationFrame(look);
      };
      requestAnimationFrame(look);
    });
    // Each change of method notes the frame on the screen and the count
    // when it is asked for; the change of count that answers it is the
    // first after that frame, whatever frames come between (a frame that
    // owes no tick runs no step, and auto quality answers on the first
    // that does).
    const switchTo = (solver) => page.evaluate((m) => {
      const s = window.tidepool.stats();
      window.switchedAt = { frame: s.frame, particles: s.particles, solver: s.solver };
      return window.tidepool.setParam('solver', m);
    }, solver);
    const answer = () => page.evaluate(() => ({
      at: window.switchedAt,
      change: window.countChanges.find((c) => c.after.frame > window.switchedAt.frame) || null,
    }));
    const answered = () => window.countChanges.some((c) => c.after.frame > window.switchedAt.frame);
    assert.equal(await switchTo('dfsph'), true);
    await until(page, answered, null, 'the count to follow DFSPH', LONG);
    const toSph = await answer();
    assert.equal(await switchTo('flip'), true);
    await until(page, answered, null, 'the count to follow FLIP', LONG);
    const toFlip = await answer();
    const changes = await page.evaluate(() => window.countChanges);
    const cm = (a, b) => 100 * Math.hypot(b.mean.x - a.mean.x, b.mean.y - a.mean.y);
    const moved = (c) => cm(c.before, c.after);
    t.diagnostic(changes.map((c) => `frame ${c.before.frame} -> ${c.after.frame} (${c.before.solver} -> ${c.after.solver}): ` +
      `${c.before.particles} -> ${c.after.particles} particles, ` +
      `t ${c.before.time.toFixed(3)} -> ${c.after.time.toFixed(3)} s, centre of mass (${c.before.mean.x.toFixed(3)}, ${c.before.mean.y.toFixed(3)}) -> ` +
      `(${c.after.mean.x.toFixed(3)}, ${c.after.mean.y.toFixed(3)}) m, moved ${moved(c).toFixed(1)} cm ` +
      `(the frame before: ${c.prev ? `${cm(c.prev, c.before).toFixed(1)} cm in ${(c.before.time - c.prev.time).toFixed(3)} s` : 'none'}); ` +
      `obstacles ${c.before.obstacles} -> ${c.after.obstacles}`).join('; '));
    assert.ok(start.obstacles >= 1, 'the disc was drawn');
    const drop = toSph.change, rise = toFlip.change;
    for (const [was, a, solver] of [['flip', toSph, 'dfsph'], ['dfsph', toFlip, 'flip']]) {
      assert.equal(a.at.solver, was);
      assert.equal(a.change.after.solver, solver, `the first change of count after the switch to ${solver} is under it`);
      assert.equal(a.change.before.particles, a.at.particles, `nothing changed the count between the switch to ${solver} and its answer`);
    }
    // Asked for an eighth (eight times), the lattice of whole cells that
    // keeps the water's area gives a count near it (World::resample).
    const ratio = (c) => c.after.particles / c.before.particles;
    assert.ok(ratio(drop) > 1 / 16 && ratio(drop) < 1 / 4, `DFSPH near an eighth of FLIP's count (x${ratio(drop).toFixed(3)})`);
    assert.ok(ratio(rise) > 4 && ratio(rise) < 16, `FLIP near eight times DFSPH's count (x${ratio(rise).toFixed(2)})`);
    for (const c of changes) {
      const what = `${c.before.particles} -> ${c.after.particles} particles`;
      assert.ok(c.after.time > c.before.time, `${what}: time goes on (${c.before.time} -> ${c.after.time} s)`);
      assert.ok(moved(c) < 5, `${what}: the centre of mass moves less than 5 cm (${moved(c).toFixed(1)} cm)`);
      assert.equal(c.after.obstacles, start.obstacles, `${what}: the drawn disc stays`);
    }
    assert.deepEqual(log.errors, []);
    await closeAll();
  });

  test('slow motion: a frame at the work bound shows the sign, and a tap on pause stops time within a frame', { timeout: LONG * 3 }, async (t) => {
    // Müller at the smallest CFL factor asks for hundreds of substeps a
    // frame, with the substep cap out of the way: the work bound ends each
    // frame early (World::advance).
    const { page, log } = await openPage(`scene=dam-break&solver=muller2003&${FEW}&${PLAIN}`, LAYOUTS[0]);
    await ready(page, 3);
    assert.equal(await page.evaluate(() => window.tidepool.setParam('max_substeps', 1000)), true);
    assert.equal(await page.evaluate(() => window.tidepool.setParam('cfl', 0.02)), true);
    await until(page, () => window.tidepool.stats().workCapHit, null, 'a frame ended on the work bound');
    await until(page, () => !document.getElementById('slow').hidden, null, 'the slow-motion sign');
    const slow = await stats(page);
    assert.ok(slow.work > 0 && slow.work <= slow.workLimit, `work ${slow.work} within its bound ${slow.workLimit}`);
    // The tap is handled between two frames, each bounded: the next one is paused.
    await page.tap('#tb-play');
    const s0 = await stats(page);
    // Frames drawn after the tap, paused: time stands still in them.
    const s1 = await nextFrames(page, 10);
    t.diagnostic(`work ${slow.work.toExponential(2)} of ${slow.workLimit.toExponential(2)}; ` +
      `after the tap, time moved ${(s1.time - s0.time).toFixed(4)} s in ${s1.frame - s0.frame} frames`);
    assert.equal(s1.paused, true);
    assert.ok(s1.frame >= s0.frame + 10, 'the page draws on while paused');
    assert.ok(s1.time - s0.time <= 3 / 60 + 1e-9, 'at most one frame (three ticks) after the tap');
    // The sign stays a second after the last slow frame, then goes.
    await until(page, () => document.getElementById('slow').hidden, null, 'the sign to go while paused');
    assert.equal((await stats(page)).time, s1.time, 'time still stands');
    assert.deepEqual(log.errors, []);
    await closeAll();
  });

  test('idle motion: an untouched page keeps the water moving, and the first touch stops it', { timeout: LONG * 6 }, async (t) => {
    // Two pages of the same dam break: one left alone, one clicked at once
    // (in the air, far from the water). Once the break has died down (FLIP's
    // sloshing, by about 20 s: 29 J at 12-16 s, 0.3 J at 24-28 s at this
    // count), the clicked one lies almost still; the other goes on making
    // waves. The idle motion is a force of each tick's simulated time
    // (idle_force()), so the untouched page's water takes the same path
    // however its frames group the ticks; it runs in the page's own frames,
    // and its energy is the mean over every frame from 22 s to 30 s. The
    // clicked one, paused, runs in tidepool.advance()'s ticks, its energy
    // the mean over every sixth tick of the same span.
    const energy = {};
    for (const name of ['untouched', 'touched']) {
      const { page, log } = await openPage(`scene=dam-break&embed=1&${FEW}&${PLAIN}`, SMALL);
      const s0 = await ready(page, 3);
      let mean;
      if (name === 'touched') {
        const spot = toCanvas(s0, s0.box.max.x * 0.9, s0.box.max.y * 0.9);  // air, far from the water
        await page.mouse.click(spot.x, spot.y);
        // A click ends it (the next frame reads the click).
        await until(page, () => !window.tidepool.stats().idle, null, 'the click to end the idle motion');
        assert.equal(await page.evaluate(() => window.tidepool.pause(true)), true);
        await advance(page, Math.round((22 - (await stats(page)).time) * 60));
        let sum = 0;
        for (let k = 0; k < 80; k++) sum += (await stepFrame(page, 6)).kineticEnergy;
        mean = { energy: sum / 80, samples: 80 };
      } else {
        await simulate(page, 22 - s0.time, LONG * 3);
        mean = await page.evaluate((end) => new Promise((done) => {
          let sum = 0, n = 0;
          const look = () => {
            const s = window.tidepool.stats();
            sum += s.kineticEnergy, n++;
            if (s.time >= end) done({ energy: sum / n, samples: n });
            else requestAnimationFrame(look);
          };
          requestAnimationFrame(look);
        }), 30);
      }
      const s1 = await stats(page);
      energy[name] = { idle: s1.idle, mean: mean.energy, samples: mean.samples };
      assert.deepEqual(log.errors, []);
      await closeAll();
    }
    t.diagnostic(`mean kinetic energy over t = 22..30 s: untouched ${energy.untouched.mean.toExponential(2)} J ` +
      `(idle ${energy.untouched.idle}, ${energy.untouched.samples} frames), clicked at the start ${energy.touched.mean.toExponential(2)} J ` +
      `(idle ${energy.touched.idle}, ${energy.touched.samples} samples)`);
    assert.equal(energy.untouched.idle, true);
    assert.ok(energy.untouched.mean > 2.5 * energy.touched.mean, 'the untouched water keeps moving');
  });
});
