// The toy embedded in somebody else's post: the post is served from a
// second origin (another port, and another host name), with docs/embedding.md's
// iframe snippet. The toy runs there, answers postMessage, lets a reader
// scroll past on a touch screen until a tap says "play", and several embeds
// on one page sleep while scrolled away.
//
//   cd web && node --test --test-concurrency=1 tests/embed.test.mjs
import { describe, test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import http from 'node:http';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { animationFrames, watchPage, ready, until, stats, useBrowser } from './support.mjs';

const LONG = 90_000;

// h.toy: the toy's host, http://127.0.0.1:P/.
const h = useBrowser({ servers: { toy: {} } });
const { closeAll } = h;
let blog;      // the post's host: http://localhost:Q/ (another origin, another site)
let blogUrl;
const pages = new Map();  // path -> HTML the blog serves

// The snippet of docs/embedding.md, with YOUR-HOST/tidepool/ pointing at
// the toy's server, the particle count fixed (which turns auto quality off:
// what the tests see does not hang on the frames' speed) and the particles
// drawn as such (the liquid surface is the most work to draw, and no test
// here looks at the water); `extra` adds query parameters.
const docSrc = 'https://YOUR-HOST/tidepool/?embed=1&scene=dam-break';
const docSnippet = (() => {
  const doc = fs.readFileSync(path.join(path.dirname(fileURLToPath(import.meta.url)), '..', '..', 'docs', 'embedding.md'), 'utf8');
  const block = /```html\n([\s\S]*?)```/.exec(doc);
  assert.ok(block && block[1].includes(docSrc), `docs/embedding.md's first snippet opens ${docSrc}`);
  return block[1].trim();
})();
function snippet(extra = '&particles=600&color=water') {
  return docSnippet.replace(docSrc, `${h.toy.url}?embed=1&scene=dam-break${extra}`);
}

function post(body) {
  return `<!doctype html><html lang="en"><head><meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1"><title>A post</title><link rel="icon" href="data:,">
<style>body{margin:0;font:18px/1.6 Georgia,serif} main{max-width:40rem;margin:0 auto;padding:1rem} p{margin:1rem 0}</style>
</head><body><main>${body}</main></body></html>`;
}
const filler = (n) => Array.from({ length: n }, (_, i) => `<p>Paragraph ${i + 1} of the post: words to scroll past, about water and how it moves.</p>`).join('\n');

before(async () => {
  blog = http.createServer((req, res) => {
    const html = pages.get(new URL(req.url, 'http://x').pathname);
    res.writeHead(html ? 200 : 404, { 'Content-Type': 'text/html; charset=utf-8', 'Cache-Control': 'no-cache' });
    res.end(html || 'not found');
  });
  await new Promise((r) => blog.listen(0, '127.0.0.1', r));
  blogUrl = `http://localhost:${blog.address().port}/`;
});

after(async () => {
  if (blog) await new Promise((r) => blog.close(r));
});

async function openPost(name, html, { viewport = { width: 480, height: 600 }, hasTouch = false, isMobile = false } = {}) {
  pages.set('/' + name, html);
  const context = await h.newContext({ viewport, hasTouch, isMobile });
  const page = await context.newPage();
  // Requests to either of the two hosts are expected; watchPage counts the rest.
  const log = watchPage(page, blogUrl);
  await page.goto(blogUrl + name);
  return { context, page, log };
}

const toyFrames = (page) => page.frames().filter((f) => f.url().startsWith(h.toy.url));
const outside = (log) => log.outside.filter((u) => !u.startsWith(h.toy.url));

// Sends `message` to iframe k and waits for a stats reply (one per call).
function askStats(page, k = 0) {
  return page.evaluate(
    ([k, origin]) =>
      new Promise((resolve, reject) => {
        const toyWindow = document.querySelectorAll('iframe')[k].contentWindow;
        const timer = setTimeout(() => reject(new Error('no stats reply')), 10_000);
        const onReply = (e) => {
          if (e.source !== toyWindow || e.origin !== origin || !e.data || e.data.type !== 'stats') return;
          window.removeEventListener('message', onReply);
          clearTimeout(timer);
          resolve(e.data.stats);
        };
        window.addEventListener('message', onReply);
        toyWindow.postMessage({ type: 'stats' }, origin);
      }),
    [k, new URL(h.toy.url).origin],
  );
}
const send = (page, message, k = 0) =>
  page.evaluate(([m, k, origin]) => document.querySelectorAll('iframe')[k].contentWindow.postMessage(m, origin), [message, k, new URL(h.toy.url).origin]);

describe('the toy embedded in a post from another origin', { concurrency: 1 }, () => {
  test('the embed snippet runs cross-origin and postMessage works (pause judged by simulated time)', { timeout: LONG * 3 }, async (t) => {
    const { page, log } = await openPost('cross.html', post(`<h1>A post</h1>\n${snippet()}\n${filler(3)}`));
    const [frame] = toyFrames(page);
    assert.ok(frame, 'the post has the toy in an iframe');
    assert.notEqual(new URL(page.url()).origin, new URL(frame.url()).origin);
    await ready(frame, 3);
    const first = await askStats(page);
    assert.equal(first.scene, 'dam-break');
    assert.equal(first.threads, 1, 'a post is not cross-origin isolated: one thread');
    assert.equal(first.quality.auto, false, 'the count is fixed');

    // Ten frames drawn while paused (or this waits in vain), and no time.
    const frames = (from) => until(frame, (n) => window.tidepool.stats().frame >= n, from.frame + 10, 'ten more frames');
    await send(page, { type: 'pause', value: true });
    await until(frame, () => window.tidepool.stats().paused, null, 'pause by message');
    const p0 = await askStats(page);
    await frames(p0);
    const p1 = await askStats(page);
    assert.equal(p1.time, p0.time, 'no simulated time passes while paused');

    // Ten frames after resuming: time passes again.
    await send(page, { type: 'pause', value: false });
    await send(page, { type: 'setParam', name: 'viscosity', value: 3 });
    await until(frame, () => !window.tidepool.stats().paused, null, 'resume by message');
    const r0 = await askStats(page);
    await frames(r0);
    const r1 = await askStats(page);
    assert.ok(r1.time > r0.time, `simulated time passes again (${r0.time} -> ${r1.time} s)`);
    assert.equal(await frame.evaluate(() => window.tidepool.info().params.find((p) => p.name === 'viscosity').value), 3);

    await send(page, { type: 'reset', scene: 'drop' });
    await until(frame, () => window.tidepool.stats().scene === 'drop', null, 'reset by message');
    const d = await askStats(page);
    t.diagnostic(`post ${new URL(page.url()).origin}, toy ${new URL(frame.url()).origin}; paused: time ${p0.time} -> ${p1.time}, frame ${p0.frame} -> ${p1.frame}; resumed: time ${r0.time.toFixed(3)} -> ${r1.time.toFixed(3)}; after reset: scene ${d.scene}`);
    assert.deepEqual(log.errors, []);
    assert.deepEqual(outside(log), []);
    await closeAll();
  });

  test('touch: a swipe scrolls the post until a tap on the toy; then a drag moves the water and not the page', { timeout: LONG * 3 }, async (t) => {
    const html = post(`<h1>A post</h1>\n${snippet()}\n${filler(40)}`);
    const { page, log } = await openPost('touch.html', html, { viewport: { width: 412, height: 700 }, hasTouch: true, isMobile: true });
    const [frame] = toyFrames(page);
    await ready(frame, 3);
    const box = await page.locator('iframe').boundingBox();
    const cdp = await page.context().newCDPSession(page);
    const x = box.x + box.width / 2;
    const touch = (type, y) => cdp.send('Input.dispatchTouchEvent', { type, touchPoints: type === 'touchEnd' ? [] : [{ x, y }] });
    // A finger moving up across the iframe, as a reader scrolls down: one
    // move a frame, as a hand's come. Returns once the post has stopped
    // scrolling.
    async function swipe(y0, y1, steps = 12) {
      await touch('touchStart', y0);
      for (let k = 1; k <= steps; k++) {
        await touch('touchMove', y0 + ((y1 - y0) * k) / steps);
        await animationFrames(page, 1);
      }
      await touch('touchEnd');
      await settled();
    }
    // Waits until the post's scroll position has held for five frames.
    const settled = () =>
      page.evaluate(() => new Promise((resolve) => {
        let last = NaN, still = 0;
        const step = () => {
          still = window.scrollY === last ? still + 1 : 0;
          last = window.scrollY;
          if (still >= 5) resolve();
          else requestAnimationFrame(step);
        };
        requestAnimationFrame(step);
      }));
    const yTop = box.y + 0.8 * box.height, yBottom = box.y + 0.2 * box.height;
    assert.equal(await frame.evaluate(() => !document.getElementById('gate').hidden), true, 'the tap-to-play hint shows');

    await swipe(yTop, yBottom);
    const scrolled = await page.evaluate(() => window.scrollY);
    const before = await stats(frame);
    assert.ok(scrolled > 50, `the post scrolled (scrollY ${scrolled})`);
    assert.equal(before.pointers.length, 0);

    await page.evaluate(() => window.scrollTo(0, 0));
    await settled();
    assert.equal(await page.evaluate(() => window.scrollY), 0);
    await touch('touchStart', box.y + box.height / 2);
    await touch('touchEnd');
    await until(frame, () => document.getElementById('gate').hidden, null, 'the tap to start play');

    // Now the same swipe is the water's: record the pointers it makes.
    await frame.evaluate(() => {
      window.__pointers = 0;
      const loop = () => {
        const s = window.tidepool.stats();
        if (s) window.__pointers = Math.max(window.__pointers, s.pointers.length);
        window.__loop = requestAnimationFrame(loop);
      };
      loop();
    });
    await swipe(yTop, yBottom, 24);
    const pointers = await frame.evaluate(() => (cancelAnimationFrame(window.__loop), window.__pointers));
    const after = await page.evaluate(() => window.scrollY);
    t.diagnostic(`before the tap: scrollY 0 -> ${scrolled}; after: scrollY ${after}, pointers seen by the toy during the drag: ${pointers}`);
    assert.equal(after, 0, 'the post did not scroll');
    assert.ok(pointers >= 1, 'the drag reached the water');
    assert.deepEqual(log.errors, []);
    await closeAll();
  });

  test('six embeds on one post: those in view run, those scrolled away sleep', { timeout: LONG * 4 }, async (t) => {
    const body = Array.from({ length: 6 }, (_, k) => `<h2>Figure ${k + 1}</h2>\n${snippet()}\n${filler(10)}`).join('\n');
    const { page, log } = await openPost('six.html', post(body));
    await until(page, (n) => document.querySelectorAll('iframe').length === n, 6, 'six iframes');
    // The frames in document order (page.frames() is not).
    const ordered = async () => {
      const list = [];
      for (const el of await page.$$('iframe')) list.push(await el.contentFrame());
      return list;
    };
    // Which iframes the reader can see, by the post's own layout.
    const visible = () =>
      page.evaluate(() => [...document.querySelectorAll('iframe')].map((el) => {
        const r = el.getBoundingClientRect();
        return r.bottom > 0 && r.top < innerHeight;
      }));
    // null: not started (a toy in a post starts when first in view).
    const look = (f) => f.evaluate(() => (window.tidepool ? window.tidepool.stats() : null));
    async function check(label) {
      const seen = await visible();
      const fs = await ordered();
      for (let k = 0; k < fs.length; k++) {
        if (seen[k]) await ready(fs[k], 3);
        await until(fs[k], (v) => { const s = window.tidepool.stats(); return s ? s.awake === v : !v; }, seen[k], `embed ${k + 1} ${seen[k] ? 'awake' : 'asleep'}`);
      }
      // Each embed in view draws five frames and simulates (or this waits
      // in vain); meanwhile those out of view do neither.
      const a = await Promise.all(fs.map(look));
      for (let k = 0; k < fs.length; k++) {
        if (seen[k]) {
          await until(fs[k], ([n, t]) => window.tidepool.stats().frame >= n && window.tidepool.stats().time > t,
            [a[k].frame + 5, a[k].time], `embed ${k + 1} to run`);
        }
      }
      const b = await Promise.all(fs.map(look));
      const show = (s, k) => (s ? `${s.frame - a[k].frame}/${(s.time - a[k].time).toFixed(2)}` : '-');
      t.diagnostic(`${label}: visible ${seen.map((v) => (v ? 1 : 0)).join('')}; frames/simulated s meanwhile (- not started): ${b.map(show).join(' ')}`);
      for (let k = 0; k < fs.length; k++) {
        if (seen[k]) assert.ok(b[k].frame > a[k].frame && b[k].time > a[k].time, `embed ${k + 1} runs in view`);
        else assert.ok(!b[k] || (b[k].frame === a[k].frame && b[k].time === a[k].time), `embed ${k + 1} sleeps out of view`);
      }
      return { seen, started: b.map((s) => !!s) };
    }
    const top = await check('at the top');
    assert.ok(top.seen[0] && !top.seen[5]);
    assert.equal(top.started[5], false, 'an embed far below has not started');
    await page.evaluate(() => document.querySelectorAll('iframe')[5].scrollIntoView({ block: 'center' }));
    const bottom = await check('at the last figure');
    assert.ok(!bottom.seen[0] && bottom.seen[5]);
    assert.deepEqual(log.errors, []);
    assert.deepEqual(outside(log), []);
    await closeAll();
  });

  test('more embeds than WebGL contexts: those out of view give theirs back, and get one again', { timeout: LONG * 6 }, async (t) => {
    const N = 20;  // Chromium keeps about 16 WebGL contexts, then drops the oldest
    const body = Array.from({ length: N }, (_, k) => `<h2>Figure ${k + 1}</h2>\n${snippet('&particles=300&color=water&scene=drop')}\n${filler(8)}`).join('\n');
    const { page, log } = await openPost('many.html', post(body));
    await until(page, (n) => document.querySelectorAll('iframe').length === n, N, `${N} iframes`);
    const fs = [];
    for (const el of await page.$$('iframe')) fs.push(await el.contentFrame());
    const t0 = Date.now();
    for (let k = 0; k < N; k++) {
      await page.evaluate((i) => document.querySelectorAll('iframe')[i].scrollIntoView({ block: 'center' }), k);
      await ready(fs[k], 3);
    }
    const tour = Date.now() - t0;
    // An embed gives its context back 2 s after it leaves the view
    // (index.html): counted once that has passed for all but the last, so
    // that the count does not depend on how fast the tour went.
    await new Promise((resolve) => setTimeout(resolve, 2500));
    // Contexts still held, and messages shown, across all of them.
    const states = await Promise.all(fs.map((f) => f.evaluate(() => ({
      started: !!(window.tidepool && window.tidepool.stats()),
      lost: document.getElementById('canvas').getContext('webgl2').isContextLost(),
      message: document.getElementById('status').hidden ? '' : document.getElementById('message').textContent,
    }))));
    const held = states.filter((s) => !s.lost).length;
    // Back to the first: it gets a context again and goes on.
    await page.evaluate(() => document.querySelectorAll('iframe')[0].scrollIntoView({ block: 'center' }));
    const before = await fs[0].evaluate(() => window.tidepool.stats());
    await until(fs[0], (n) => window.tidepool.stats().frame > n + 5 && window.tidepool.stats().glReady, before.frame, 'the first embed drawing again');
    const again = await fs[0].evaluate(() => ({ s: window.tidepool.stats(), lost: document.getElementById('canvas').getContext('webgl2').isContextLost() }));
    t.diagnostic(`${N} embeds visited in ${(tour / 1000).toFixed(1)} s; contexts held at the end: ${held}; messages: ${states.filter((s) => s.message).length}; first embed again: frame ${before.frame} -> ${again.s.frame}, time ${before.time.toFixed(2)} -> ${again.s.time.toFixed(2)}, context lost: ${again.lost}`);
    assert.ok(states.every((s) => s.started), 'every embed started when it came into view');
    assert.deepEqual(states.filter((s) => s.message).map((s) => s.message), [], 'no embed says its context was lost');
    assert.ok(held <= 8, `only the embeds near the reader hold a context (${held})`);
    assert.equal(again.lost, false);
    assert.ok(again.s.time > before.time, 'the first embed simulates again');
    assert.deepEqual(log.errors, []);
    await closeAll();
  });
});
