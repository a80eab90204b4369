// Random play on the page, like a crowd with a console open: a number of
// actions (TIDEPOOL_FUZZ_ACTIONS), postMessage, setParam, reset, pause,
// obstacles, colours, bodies (dropped, dragged, let go, removed, tapped
// with the body tool), mouse and multi-finger touch, the page opened again
// with its keys or from its share link, with hostile values (huge numbers,
// NaN, strings, objects, wrong types), and a WebGL context loss half way.
// What must hold: no page error, the frames keep coming, the context comes
// back, the state keeps its promises after every action (tidepool.check(),
// World::problem: what the soak checks of every frame) and each frame's
// work its bound, a share link carries the scene and every body, and the
// WebAssembly heap stays bounded. The actions come from a seeded generator
// (TIDEPOOL_FUZZ_SEED); a failure prints the seed and the last actions,
// and the same seed and count replay the same sequence.
//
//   cd web && node --test tests/fuzz.test.mjs
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { watchPage, ready, stats, until, useBrowser } from './support.mjs';

const ACTIONS = Number(process.env.TIDEPOOL_FUZZ_ACTIONS || 60);
const SEED = Number(process.env.TIDEPOOL_FUZZ_SEED || 1);
// Small: the play does not depend on the page's size.
const VIEW = { width: 480, height: 336 };
// A frame at least this often, however hostile the settings: the step's
// substep cap bounds a frame's work.
const STALL_MS = 15_000;
// The heap may grow while the play finds bigger worlds, up to this.
const HEAP_LIMIT = 512 * 1024 * 1024;
// Chromium's own report when a touch handler (the app's) cancels a touch the
// compositor had already made uncancelable, which it does when the main
// thread is slow to answer (here, SwiftShader drawing): the touch still
// reaches the water, and the page did nothing wrong.
const intervention = /^Ignored attempt to cancel a touch\w+ event with cancelable=false/;
const pageErrors = (log) => log.errors.filter((e) => !intervention.test(e));

const h = useBrowser();

// mulberry32: a small seeded generator, so a failing run can be replayed.
function generator(seed) {
  let a = seed >>> 0;
  const next = () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
  return {
    next,
    below: (n) => Math.floor(next() * n),
    pick: (list) => list[Math.floor(next() * list.length)],
    chance: (p) => next() < p,
  };
}

// The page's own keys, each with values it takes and values it must
// refuse with a warning (out of range, malformed, empty).
const KEYS = [
  ['scene', ['dam-break', 'float', 'pool', 'stir', 'smoke', 'nowhere', '']],
  ['particles', ['300', '1500', '0', '-5', '1e9', 'abc']],
  ['solver', ['flip', 'dfsph', 'muller2003', 'stable', 'x']],
  ['bg', ['transparent', 'x']],
  ['ui', ['0', '1', 'maybe']],
  ['walls', ['0', '1', '']],
  ['hover', ['1', '0']],
  ['embed', ['1']],
  ['paused', ['1', '0']],
  ['palette', ['ff0000,0000ff', '00ff00', 'zzzzzz', 'ff0000,ff0000,ff0000,ff0000,ff0000,ff0000,ff0000,ff0000,ff0000', '']],
  ['splats', ['0', '2', '600', '600.1', '1e-30', '-1', 'NaN']],
  ['seed', ['5', '0', '1000000000', '-3', 'x']],
  ['dye', ['core', 'gpu', 'x']],
  ['dpr', ['1', '2', '0', '9']],
  ['tilt', ['0', '1']],
  ['color', ['water', 'speed', 'x']],
];

// The bodies each share link carried, for the run's report.
const shared = [];

// Hostile values, built inside the page by index (functions and getters
// cannot cross into it).
const HOSTILE = 14;
function hostile(i) {
  return [1e308, -1e308, Infinity, -Infinity, NaN, 0, -1, 1e9, 'abc', '1e999', null, undefined, {},
          [1, 2], { valueOf() { throw new Error('hostile valueOf'); } }][i];
}

// One random action: a description for the log, and its effect.
function action(rng, names, scenes, page, cdp, box, origin) {
  const name = () => (rng.chance(0.8) ? rng.pick(names) : rng.pick(['', 'no_such', '__proto__', 'constructor']));
  const value = (p) => {
    if (rng.chance(0.5) || !p) return { hostile: rng.below(HOSTILE + 1) };
    return { number: p.min + rng.next() * (p.max - p.min) };
  };
  const spot = () => ({ x: rng.next() * box.width * 1.2 - 0.1 * box.width, y: rng.next() * box.height * 1.2 - 0.1 * box.height });
  switch (rng.below(13)) {
    case 0: {  // setParam, in range or hostile
      const n = name();
      const v = value(names.info[n]);
      return [`setParam ${n} ${JSON.stringify(v)}`, () => page.evaluate(([n, v, src]) => {
        const h = new Function(`return (${src})`)();
        window.tidepool.setParam(n, 'hostile' in v ? h(v.hostile) : v.number);
      }, [n, v, hostile.toString()])];
    }
    case 1: {  // postMessage, well formed or not
      const kind = rng.below(6);
      const n = name(), v = rng.below(HOSTILE + 1), scene = rng.pick([...scenes, 'nowhere', '']);
      return [`postMessage ${kind} ${n} ${v} ${scene}`, () => page.evaluate(([kind, n, v, scene, src]) => {
        const h = new Function(`return (${src})`)();
        const messages = [
          { type: 'setParam', name: n, value: h(v) },
          { type: 'pause', value: h(v) },
          { type: 'reset', scene },
          { type: 'stats' },
          { type: h(v) },
          h(v),
        ];
        try { window.postMessage(messages[kind], '*'); } catch (e) { /* an uncloneable value: the sender's error */ }
      }, [kind, n, v, scene, hostile.toString()])];
    }
    case 2: {  // reset, to a scene or to garbage
      const scene = rng.chance(0.7) ? rng.pick(scenes) : rng.pick(['nowhere', '', '../etc']);
      return [`reset ${scene}`, () => page.evaluate((s) => window.tidepool.reset(s), scene)];
    }
    case 3: {  // pause and resume
      const paused = rng.chance(0.3);
      return [`pause ${paused}`, () => page.evaluate((p) => window.tidepool.pause(p), paused)];
    }
    case 4: {  // obstacles, colours
      const k = rng.below(4), v = rng.below(HOSTILE + 1), r = rng.next() * 0.5;
      const at = { x: rng.next() * 4, y: rng.next() * 3 };
      return [`shapes ${k} ${v}`, () => page.evaluate(([k, v, r, at, src]) => {
        const h = new Function(`return (${src})`)();
        const tp = window.tidepool;
        if (k === 0) tp.addObstacle({ x: at.x, y: at.y, radius: r });
        else if (k === 1) tp.addObstacle({ x: h(v), y: at.y, radius: h(v) });
        else if (k === 2) tp.clearObstacles();
        else tp.setColor(v % 2 ? h(v) : ['water', 'liquid', 'dye', 'speed', 'pressure', 'vorticity'][v % 6]);
      }, [k, v, r, at, hostile.toString()])];
    }
    case 5:
    case 6: {  // a mouse drag, left or right button, in and out of the canvas
      const a = spot(), b = spot(), button = rng.pick(['left', 'right']);
      return [`drag ${button} ${Math.round(a.x)},${Math.round(a.y)} -> ${Math.round(b.x)},${Math.round(b.y)}`, async () => {
        await page.mouse.move(a.x, a.y);
        await page.mouse.down({ button });
        await page.mouse.move(b.x, b.y, { steps: 4 });
        await page.mouse.up({ button });
      }];
    }
    case 9:
    case 10: {  // bodies: dropped (well formed or not), dragged, let go, removed, tapped with the tool
      const k = rng.below(6), v = rng.below(HOSTILE + 1);
      const f = Array.from({ length: 6 }, () => rng.next());
      const kind = rng.pick(['box', 'disc', 'boat', 'polygon']);
      const pixel = spot();
      return [`body ${k} ${kind} ${v}`, async () => {
        if (k === 5) {
          await page.evaluate(() => window.tidepool.setTool('body'));
          await page.mouse.click(pixel.x, pixel.y);
          return;
        }
        await page.evaluate(([k, v, f, kind, src]) => {
          const h = new Function(`return (${src})`)();
          const tp = window.tidepool, b = tp.stats().box;
          const x = b.min.x + f[0] * (b.max.x - b.min.x), y = b.min.y + f[1] * (b.max.y - b.min.y);
          const size = 0.02 + f[2] * 0.8, density = 50 + f[3] * 3000;
          const ids = tp.bodies().map((o) => o.id);
          const id = ids.length && f[4] < 0.8 ? ids[Math.floor(f[4] * ids.length) % ids.length] : h(v);
          if (k === 0) {
            const spec = {
              box: `box,${size},${size * (0.3 + f[5])},${density},${x},${y},${f[5] * 6}`,
              disc: `disc,${size / 2},${density},${x},${y}`,
              boat: `boat,${size},${density},${x},${y}`,
              polygon: `polygon,${density},${x},${y},${f[5]},0,0,0,0.5,0.2,0,0,${size},0,${size / 2},${size}`,
            }[kind];
            tp.addBody(spec);
          } else if (k === 1) {
            tp.addBody(f[5] < 0.5 ? h(v) : `${kind},${h(v)},${f[2]},NaN,1e30`);
          } else if (k === 2) {
            tp.dragBody(id, f[5] < 0.8 ? x : h(v), y);
          } else if (k === 3) {
            tp.releaseBody(id);
          } else {
            tp.removeBody(id);
          }
        }, [k, v, f, kind, hostile.toString()]);
      }];
    }
    case 11: {  // the page opened again: with keys of its own, or from its share link
      const share = rng.chance(0.5);
      const keys = [];
      for (const [key, values] of KEYS) if (rng.chance(0.25)) keys.push(`${key}=${rng.pick(values)}`);
      return [share ? 'open the share link' : `open ?${keys.join('&')}`, async () => {
        if (share) {
          const before = await page.evaluate(() => ({ link: window.tidepool.shareLink(), bodies: window.tidepool.bodies().length, scene: window.tidepool.stats().scene }));
          await page.goto('about:blank');  // a load, not a move within the page to its hash
          await page.goto(before.link);
          const after = await ready(page, 3);
          assert.equal(after.scene, before.scene, 'a share link opens its scene');
          assert.equal(after.bodies, before.bodies, 'a share link carries every body');
          shared.push(before.bodies);
        } else {
          await page.goto(new URL(`/?${keys.join('&')}`, origin).href);
          await ready(page, 3);
        }
      }];
    }
    default: {  // one to five fingers dragging at once
      const fingers = Array.from({ length: 1 + rng.below(5) }, () => [spot(), spot()]);
      const at = (t) => fingers.map(([a, b], id) => ({ x: a.x + (b.x - a.x) * t, y: a.y + (b.y - a.y) * t, id }));
      return [`touch ${fingers.length} fingers`, async () => {
        await cdp.send('Input.dispatchTouchEvent', { type: 'touchStart', touchPoints: at(0) });
        for (let i = 1; i <= 4; i++) await cdp.send('Input.dispatchTouchEvent', { type: 'touchMove', touchPoints: at(i / 4) });
        await cdp.send('Input.dispatchTouchEvent', { type: 'touchEnd', touchPoints: [] });
      }];
    }
  }
}

describe('random play on the page', { concurrency: 1 }, () => {
  test(`${ACTIONS} hostile actions and a lost context (seed ${SEED})`, { timeout: ACTIONS * 5_000 + 240_000 }, async (t) => {
    const context = await h.newContext({ viewport: VIEW, hasTouch: true });
    const page = await context.newPage();
    const log = watchPage(page, h.server.url);
    const cdp = await context.newCDPSession(page);
    try {
      // The particle view, which draws fastest: each mouse and touch event
      // waits for a frame. The play switches views itself.
      await page.goto(new URL('/?scene=dam-break&particles=600&color=water', h.server.url).href);
      await ready(page, 3);
      const info = await page.evaluate(() => window.tidepool.info());
      const names = info.params.map((p) => p.name);
      names.info = Object.fromEntries(info.params.map((p) => [p.name, p]));
      const scenes = info.scenes.map((s) => s.name);
      const rng = generator(SEED);
      const recent = [];
      let lastFrame = (await stats(page)).frame, lastFrameAt = Date.now();
      const peak = { memory: 0, bodies: 0 };
      const kinds = {};
      const jsHeap = async () => {
        await cdp.send('HeapProfiler.collectGarbage');
        const { metrics } = await cdp.send('Performance.getMetrics');
        return metrics.find((m) => m.name === 'JSHeapUsedSize').value;
      };
      await cdp.send('Performance.enable');
      const heapBefore = await jsHeap();
      const t0 = Date.now();
      try {
        for (let k = 0; k < ACTIONS; k++) {
          const [what, run] = action(rng, names, scenes, page, cdp, VIEW, h.server.url);
          recent.push(what);
          const kind = what.split(' ')[0];
          kinds[kind] = (kinds[kind] || 0) + 1;
          if (recent.length > 40) recent.shift();
          await run();
          if (k === Math.floor(ACTIONS / 2)) {
            // Half way: the context goes, and comes back a second later.
            recent.push('lose the WebGL context');
            await page.evaluate(() => {
              const ext = document.getElementById('canvas').getContext('webgl2').getExtension('WEBGL_lose_context');
              ext.loseContext();
              setTimeout(() => ext.restoreContext(), 1000);
            });
          }
          const s = await stats(page);
          peak.memory = Math.max(peak.memory, s.memory);
          peak.bodies = Math.max(peak.bodies, s.bodies);
          // Frames count while paused too (the page still draws).
          if (s.frame !== lastFrame) lastFrame = s.frame, lastFrameAt = Date.now();
          assert.ok(Date.now() - lastFrameAt < STALL_MS, `no frame for ${STALL_MS} ms`);
          assert.deepEqual(pageErrors(log), [], 'no page error');
          // The state's own promises (World::problem, as the soak checks
          // them), and the frame's work within its bound.
          assert.equal(await page.evaluate(() => window.tidepool.check()), '', 'the state keeps its promises');
          assert.ok(!(s.work > s.workLimit), `the frame's work ${s.work} within its bound ${s.workLimit}`);
        }
        // Back to a sane state: the page runs on, and draws again.
        await page.evaluate(() => { window.tidepool.pause(false); window.tidepool.reset('dam-break'); });
        const before = await stats(page);
        await until(page, (f) => window.tidepool.stats().frame >= f + 30 && window.tidepool.stats().glReady,
                    before.frame, '30 more frames with the context back');
        const after = await stats(page);
        const heapAfter = await jsHeap();
        const mib = (b) => (b / 1048576).toFixed(1);
        t.diagnostic(`${ACTIONS} actions in ${((Date.now() - t0) / 1000).toFixed(1)} s; frames ${after.frame}; wasm heap ${mib(after.memory)} MiB ` +
                     `(peak ${mib(peak.memory)}); JS heap ${mib(heapBefore)} -> ${mib(heapAfter)} MiB; ` +
                     `${log.warnings.length} warnings; actions ${Object.entries(kinds).map(([k, n]) => `${k} ${n}`).join(', ')}; ` +
                     `at most ${peak.bodies} bodies; share links opened with ${shared.join(', ') || 'no'} bodies`);
        assert.ok(heapAfter < heapBefore + 32 * 1048576, 'the JS heap stays within 32 MiB of where it started');
        assert.ok(after.time > before.time, 'the simulation runs after the play');
        assert.ok(peak.memory > 0 && peak.memory <= HEAP_LIMIT, `the heap stays under ${HEAP_LIMIT / 1048576} MiB`);
        assert.deepEqual(pageErrors(log), [], 'no page error');
        assert.deepEqual(log.outside, [], 'no request left the server');
      } catch (e) {
        t.diagnostic(`seed ${SEED}, last actions:\n  ${recent.join('\n  ')}`);
        throw e;
      }
    } finally {
      await context.close();
    }
  });
});
