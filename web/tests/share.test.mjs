// Share links and pictures: tidepool.shareLink() and the "share" button put
// the setup (scene, solver, changed parameters, obstacles, colour mode) in
// the URL hash, and a page opened with it starts from that setup; "save
// picture" downloads a PNG of the canvas.
//
//   cd web && node --test --test-concurrency=1 tests/share.test.mjs
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import { decodePng } from './png.mjs';
import { watchPage, ready, stats, useBrowser } from './support.mjs';

// Every page here fixes its particle count (particles=N, or a link's), so
// auto quality is off.
const VIEW = { width: 480, height: 300 };
const LONG = 90_000;

const h = useBrowser();
const { closeAll } = h;

async function openPage(url, { permissions = [] } = {}) {
  const context = await h.newContext({ viewport: VIEW, acceptDownloads: true });
  if (permissions.length) await context.grantPermissions(permissions, { origin: new URL(h.server.url).origin });
  const page = await context.newPage();
  const log = watchPage(page, h.server.url);
  await page.goto(new URL(url, h.server.url).href);
  return { context, page, log };
}

const params = (page) =>
  page.evaluate(() => Object.fromEntries(window.tidepool.info().params.map((p) => [p.name, p.value])));

describe('share links and pictures', { concurrency: 1 }, () => {
  test('shareLink(): the link opens the same setup, and the same frames give the same hash', { timeout: LONG * 3 }, async (t) => {
    const a = await openPage('/?scene=dam-break&particles=600&paused=1&color=speed');
    await ready(a.page, 3);
    const before = await params(a.page);
    // Two parameters, the solver, and an obstacle, then back to the start.
    const changed = await a.page.evaluate(() => {
      const tp = window.tidepool;
      return [tp.setParam('viscosity', 2), tp.setParam('gravity_y', -5), tp.setParam('solver', 'muller2003')];
    });
    assert.deepEqual(changed, [true, true, true]);
    const s0 = await a.page.evaluate(() => {
      window.tidepool.reset();
      return window.tidepool.stats();
    });
    const cx = 0.5 * (s0.box.min.x + s0.box.max.x), cy = s0.box.min.y + 0.7 * (s0.box.max.y - s0.box.min.y);
    const id = await a.page.evaluate(([x, y]) => window.tidepool.addObstacle({ x, y, radius: 0.123456789 }), [cx, cy]);
    assert.ok(id >= 0, 'the obstacle was added');
    const setupA = await a.page.evaluate(() => ({ stats: window.tidepool.stats(), hash: window.tidepool.hash() }));
    const link = await a.page.evaluate(() => window.tidepool.shareLink());
    t.diagnostic(`link: ${link}`);
    assert.match(link, /^http:\/\/127\.0\.0\.1:\d+\/#tp=2&/);
    const hash = new URL(link).hash;
    for (const part of ['scene=dam-break', 'color=speed', 'particles=600', 'viscosity:2', 'gravity_y:-5', 'solver:muller2003', 'obstacles='])
      assert.ok(hash.includes(part), `the link carries ${part}`);
    // Only the changed parameters travel.
    const sent = /set=([^&]*)/.exec(hash)[1].split(',').map((p) => p.split(':')[0]).sort();
    assert.deepEqual(sent, ['gravity_y', 'solver', 'viscosity']);
    const paramsA = await params(a.page);
    assert.notEqual(before.viscosity, paramsA.viscosity);

    // The same link, opened paused so both start from frame 0 of the setup.
    const b = await openPage(link.replace('#', '?paused=1#'));
    await ready(b.page, 3);
    const setupB = await b.page.evaluate(() => ({ stats: window.tidepool.stats(), hash: window.tidepool.hash() }));
    const paramsB = await params(b.page);
    assert.equal(setupB.stats.quality.auto, false, 'the link fixes the count');
    assert.equal(setupB.stats.scene, 'dam-break');
    assert.equal(setupB.stats.color, 'speed');
    assert.equal(setupB.stats.particles, setupA.stats.particles);
    assert.equal(setupB.stats.obstacles, setupA.stats.obstacles);
    assert.deepEqual(paramsB, paramsA, 'every parameter as on the sharing page');
    assert.equal(setupB.hash, setupA.hash, 'the same state at the start');

    const N = 60;
    const hashA = await a.page.evaluate((n) => (window.tidepool.advance(n), window.tidepool.hash()), N);
    const hashB = await b.page.evaluate((n) => (window.tidepool.advance(n), window.tidepool.hash()), N);
    const timeA = (await stats(a.page)).time, timeB = (await stats(b.page)).time;
    t.diagnostic(`start hash ${setupA.hash} = ${setupB.hash}; after ${N} advance() frames: ${hashA} vs ${hashB} (t = ${timeA} / ${timeB} s); obstacles ${setupA.stats.obstacles}, particles ${setupA.stats.particles}`);
    assert.notEqual(hashA, setupA.hash, 'the water moved');
    assert.equal(hashB, hashA);
    for (const { log } of [a, b]) {
      assert.deepEqual(log.errors, []);
      assert.deepEqual(log.outside, []);
      assert.deepEqual(log.warnings.filter((w) => /tidepool/.test(w)), []);
    }
    await closeAll();
  });

  test('a malformed or hostile hash is ignored with a warning, never injected', { timeout: LONG * 4 }, async (t) => {
    const cases = [
      ['#tp=3&scene=drop', /not a Tidepool share link/],
      ['#tp=1&scene=%3Cscript%3Ealert(1)%3C/script%3E', /scene is not a name/],
      ['#tp=1&scene=drop&scene=stir', /given twice/],
      ['#tp=1&obstacles=c:1:2', /obstacle is malformed/],
      ['#tp=1&obstacles=c:0:0:1e30', /obstacle ignored/],
      ['#tp=1&set=viscosity:lots', /viscosity/],
      ['#tp=1&scene=nowhere', /unknown scene/],
      ['#tp=1&onload=alert(1)', /unknown field/],
      ['#' + 'x'.repeat(9000), /too long/],
    ];
    for (const [hash, warning] of cases) {
      const { page, log } = await openPage(`/?scene=drop&particles=600&color=water&paused=1${hash}`);
      const s = await ready(page, 1);
      const seen = log.warnings.filter((w) => warning.test(w));
      t.diagnostic(`${hash.slice(0, 48)} -> scene ${s.scene}, obstacles ${s.obstacles}; warning: ${seen[0] || '(none)'}`);
      assert.ok(seen.length > 0, `a warning for ${hash.slice(0, 40)}`);
      assert.equal(s.scene, 'drop');
      assert.deepEqual(log.errors, []);
      assert.equal(await page.evaluate(() => document.querySelectorAll('script').length), 2, 'nothing injected');
      await closeAll();
    }
  });

  test('the share button copies the link; save picture downloads a PNG of the canvas', { timeout: LONG * 2 }, async (t) => {
    const { page, log } = await openPage('/?scene=dam-break&particles=600&paused=1', { permissions: ['clipboard-read', 'clipboard-write'] });
    await ready(page, 3);
    await page.evaluate(() => window.tidepool.setParam('viscosity', 1.5));
    await page.click('#share');
    await page.waitForFunction(() => !document.getElementById('toast').hidden && /#tp=2/.test(document.getElementById('toast').textContent));
    const toast = await page.textContent('#toast');
    const clip = await page.evaluate(() => navigator.clipboard.readText());
    t.diagnostic(`toast: ${toast}; clipboard: ${clip}`);
    assert.match(clip, /#tp=2&scene=dam-break&.*viscosity:1\.5/);
    assert.ok(toast.includes(clip));

    const [download] = await Promise.all([page.waitForEvent('download'), page.click('#picture')]);
    const file = await download.path();
    const bytes = fs.readFileSync(file);
    const png = decodePng(bytes);
    const size = await page.evaluate(() => [document.getElementById('canvas').width, document.getElementById('canvas').height]);
    let water = 0;
    for (let o = 0; o < png.data.length; o += 4) {
      const [r, g, b] = [png.data[o], png.data[o + 1], png.data[o + 2]];
      if (b > 120 && b >= r + 40 && g > 50) water++;
    }
    const fraction = water / (png.width * png.height);
    t.diagnostic(`download ${download.suggestedFilename()}: ${bytes.length} bytes, ${png.width}x${png.height} (canvas ${size.join('x')}), water pixels ${(100 * fraction).toFixed(1)}%`);
    assert.equal(download.suggestedFilename(), 'tidepool-dam-break.png');
    assert.deepEqual(bytes.subarray(0, 8), Buffer.from([137, 80, 78, 71, 13, 10, 26, 10]));
    assert.deepEqual([png.width, png.height], size);
    assert.ok(fraction > 0.02, 'the picture shows the water, not a cleared buffer');
    assert.deepEqual(log.errors, []);
    await closeAll();
  });
});
