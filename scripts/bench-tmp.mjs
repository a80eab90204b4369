#!/usr/bin/env node
// The anchor for FLIP's speed: Ten Minute Physics 18, "FLIP" (Matthias
// Müller, MIT licence), a plain-JavaScript FLIP liquid, timed in node on the
// bench's dam break (a 1.6 m x 2 m column in a 4 m x 3 m tank) beside
// `scripts/bench-wasm.sh --solver flip`.
//
//   node scripts/bench-tmp.mjs PATH/18-flip.html [--res N]
//
// The demo is not part of this tree: PATH is a checkout of
// github.com/matthias-research/pages (tenMinutePhysics/18-flip.html). The
// script reads the FlipFluid class out of that page and runs it unchanged,
// with the demo's own settings (one step of 1/60 s a frame, 50 pressure
// sweeps at over-relaxation 1.9, 2 separation sweeps, FLIP 0.9, drift
// compensation), the colour updates included, as the page runs them.
// Without --res it bisects the grid resolution (cells along the tank's
// height) to the largest whose median frame over simulated seconds 1 to 6
// stays within 1/60 s, as `tidepool bench` does for its capacity, and
// prints that capacity in particles. Timings vary from run to run: compare
// it with bench-wasm.sh's figure from the same run, on the same machine.
import { readFileSync } from 'node:fs';

const args = process.argv.slice(2);
const page = args.find((a) => !a.startsWith('--'));
if (!page) {
  console.error('usage: node scripts/bench-tmp.mjs PATH/tenMinutePhysics/18-flip.html [--res N]');
  process.exit(2);
}
const resArg = args.includes('--res') ? Number(args[args.indexOf('--res') + 1]) : 0;

// The simulator: the page's FlipFluid class, with the constants and the
// clamp() declared before it (from its U_FIELD on). Like the page, it
// reads the obstacle's velocity from a global `scene`, and the fluid
// itself from a global `f` (updateParticleDensity).
const html = readFileSync(page, 'utf8');
const prelude = html.indexOf('var U_FIELD');
const start = html.indexOf('class FlipFluid');
const end = html.indexOf('// ----------------- end of simulator');
if (prelude < 0 || start < 0 || end < 0) {
  console.error(`${page}: no FlipFluid class between the simulator's markers`);
  process.exit(2);
}
const { FlipFluid, setFluid } = new Function(
  'scene',
  `var f;\n${html.slice(prelude, end)}\nreturn { FlipFluid, setFluid: (fluid) => { f = fluid; } };`,
)({ obstacleVelX: 0, obstacleVelY: 0 });

const TANK_W = 4.0, TANK_H = 3.0, COLUMN_W = 1.6, COLUMN_H = 2.0;
const FRAME = 1 / 60, BUDGET_MS = 1000 / 60;

// The dam break at `res` cells along the tank's height: the demo's tank
// (a wall of one cell on the left, right and bottom) around a 4 x 3 m
// interior, and the column packed as the demo packs its water (hexagonal
// rows of particles of radius 0.3 cells, 2 radii apart).
function damBreak(res) {
  const h = TANK_H / res;
  const r = 0.3 * h, dx = 2 * r, dy = (Math.sqrt(3) / 2) * dx;
  const numX = Math.floor((COLUMN_W - 2 * r) / dx), numY = Math.floor((COLUMN_H - 2 * r) / dy);
  const f = new FlipFluid(1000.0, TANK_W + 2 * h, TANK_H + 2 * h, h, r, numX * numY);
  f.numParticles = numX * numY;
  setFluid(f);
  let p = 0;
  for (let i = 0; i < numX; i++)
    for (let j = 0; j < numY; j++) {
      f.particlePos[p++] = f.h + r + dx * i + (j % 2 === 0 ? 0 : r);
      f.particlePos[p++] = f.h + r + dy * j;
    }
  const ny = f.fNumY;
  for (let i = 0; i < f.fNumX; i++)
    for (let j = 0; j < f.fNumY; j++) f.s[i * ny + j] = i === 0 || i === f.fNumX - 1 || j === 0 ? 0 : 1;
  return f;
}

// The median wall time of the frames over simulated seconds 1 to 6, and the
// particle count; the obstacle sits far outside the tank.
function medianFrame(res) {
  const f = damBreak(res);
  const times = [];
  for (let frame = 0; frame < 360; frame++) {
    const t0 = performance.now();
    f.simulate(FRAME, -9.81, 0.9, 50, 2, 1.9, true, true, -100, -100, 0);
    if (frame >= 60) times.push(performance.now() - t0);
  }
  times.sort((a, b) => a - b);
  return { res, particles: f.numParticles, ms: times[times.length >> 1] };
}

function report(m) {
  console.log(`tmp-flip res ${m.res}: ${m.particles} particles, median frame ${m.ms.toFixed(2)} ms`);
}

if (resArg > 0) {
  report(medianFrame(resArg));
} else {
  // Double until over budget, then bisect the resolution.
  let lo = 0, hi = 0, res = 20, best = null;
  while (hi === 0 || hi - lo > 1) {
    const m = medianFrame(res);
    report(m);
    if (m.ms <= BUDGET_MS) {
      lo = res;
      best = m;
    } else {
      hi = res;
    }
    res = hi === 0 ? res * 2 : (lo + hi) >> 1;
    if (lo === 0 && hi !== 0 && hi <= 20) break;
  }
  if (best) console.log(`60-fps capacity tmp-flip ${best.particles} particles (res ${best.res}, median frame ${best.ms.toFixed(1)} ms)`);
  else console.log('60-fps capacity tmp-flip: none (res 20 is over budget)');
}
