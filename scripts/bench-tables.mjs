#!/usr/bin/env node
// The benchmark tables of docs/performance.md, generated from data.
//
// Each file in bench/results/ holds one run of `tidepool bench --json`: a
// first line {"run": {...}} that says where and how it ran (build, CPU,
// date, commit, command), then the bench's own lines, one JSON object each
// (a row per solver and size, then the summary). This script rewrites the
// regions of docs/performance.md between
//   <!-- tables:begin --> ... <!-- tables:end -->     the latest run of each kind
//   <!-- targets:begin --> ... <!-- targets:end -->   each target and where it stands
// and nothing else. Node only, no packages.
//
//   node scripts/bench-tables.mjs            rewrite the two regions
//   node scripts/bench-tables.mjs --check    exit 1 when they differ from what the data gives
//   CMD | node scripts/bench-tables.mjs --record BUILD [--name NAME] [--commit REV] [--note TEXT]
//       store CMD's output (the JSON lines of `tidepool bench --json`) as
//       bench/results/NAME.json behind its {"run"} line, then rewrite the
//       regions. BUILD is native, wasm (node) or browser. NAME defaults to
//       BUILD-CPU-DATE, with -threadsN for a --threads run.
//
// A "kind" of run is its build, its thread count and whether it is the
// stable-fluids grid bench (`--solver stable`, rows by grid size): the
// tables show the newest run of each kind (by date, then name) and list the
// older files.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { execFileSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const RESULTS = path.join(ROOT, 'bench', 'results');
const DOC = path.join(ROOT, 'docs', 'performance.md');
const BUILDS = ['native', 'wasm', 'browser'];
const BUILD_NAMES = { native: 'native', wasm: 'WebAssembly in node', browser: 'WebAssembly in a browser' };
const STAGES = ['neighbours', 'density', 'forces', 'pressure', 'integrate', 'boundaries', 'transfer'];

// The targets (docs/performance.md says what each means). `builds`: where
// the target applies.
const TARGETS = [
  {
    key: 'throughput',
    name: 'Throughput of the seeds\' solver (Müller 2003), one thread',
    goal: { native: 10e6, wasm: 5e6, browser: 5e6 },
    goalText: '≥ 10 M particle-steps/s natively, ≥ 5 M in wasm, at every size',
  },
  { key: 'spread', name: 'Cost per particle-step flat over the sizes', goal: 1.5, goalText: 'slowest size ≤ 1.5 × the fastest' },
  {
    key: 'flip-capacity',
    name: 'FLIP\'s 60-fps capacity in one wasm thread',
    goal: 36000,
    goalText: '≥ 36 000 particles at 60 frames a second (twice Ten Minute Physics 18\'s FLIP in node)',
  },
  {
    key: 'flip-tank',
    name: 'FLIP\'s cost follows the liquid',
    goal: 1.3,
    goalText: 'the same water in a tank of 4× the area: the step ≤ 1.3 × as costly',
  },
];

// ---------------------------------------------------------------------------
// Reading the results

function readRun(file) {
  const text = fs.readFileSync(file, 'utf8');
  const run = { file: path.basename(file), info: {}, rows: [], summary: null };
  text.split('\n').forEach((line, k) => {
    if (!line.trim()) return;
    let obj;
    try {
      obj = JSON.parse(line);
    } catch (e) {
      throw new Error(`${run.file}:${k + 1}: not JSON (${e.message})`);
    }
    if (obj.run) run.info = obj.run;
    else if (obj.solver) run.rows.push(obj);
    else if (obj.capacity_60fps || obj.cost_spread || obj.summary) run.summary = obj;
  });
  if (!run.rows.length) throw new Error(`${run.file}: no bench rows`);
  // A file without its {"run"} line: the build from the file name.
  if (!run.info.build) run.info.build = BUILDS.find((b) => run.file.startsWith(b)) || 'native';
  run.threads = Math.max(...run.rows.map((r) => r.threads || 1));
  run.lanes = Math.max(...run.rows.map((r) => r.lanes || 1));
  run.grid = run.rows.every((r) => r.solver === 'stable');
  run.kind = `${run.info.build}/${run.threads}${run.grid ? '/grid' : ''}`;
  return run;
}

function readRuns() {
  if (!fs.existsSync(RESULTS)) return [];
  return fs
    .readdirSync(RESULTS)
    .filter((f) => f.endsWith('.json'))
    .sort()
    .map((f) => readRun(path.join(RESULTS, f)));
}

// The newest run of each kind, in build order, one thread first.
function latestRuns(runs) {
  const newest = new Map();
  for (const r of runs) {
    const held = newest.get(r.kind);
    const key = (x) => `${x.info.date || ''} ${x.file}`;
    if (!held || key(r) > key(held)) newest.set(r.kind, r);
  }
  return [...newest.values()].sort(
    (a, b) => BUILDS.indexOf(a.info.build) - BUILDS.indexOf(b.info.build) || a.grid - b.grid || a.threads - b.threads,
  );
}

// ---------------------------------------------------------------------------
// Formatting

const mega = (v) => (v / 1e6).toFixed(v >= 1e7 ? 1 : 2);
const fixed = (v, d) => (v === undefined || v === null || Number.isNaN(v) ? '–' : Number(v).toFixed(d));
const thousands = (v) => String(Math.round(v)).replace(/\B(?=(\d{3})+(?!\d))/g, ' ');
const range = (values, f) => {
  const lo = Math.min(...values), hi = Math.max(...values);
  return f(lo) === f(hi) ? f(lo) : `${f(lo)}–${f(hi)}`;
};

function describe(run) {
  const i = run.info;
  const parts = [];
  if (i.cpu) parts.push(i.cpu);
  if (i.cores) parts.push(`${i.cores} cores`);
  if (i.runtime) parts.push(i.runtime);
  parts.push(`${run.threads} thread${run.threads > 1 ? 's' : ''}`);
  parts.push(run.lanes > 1 ? `${run.lanes} lanes` : 'scalar');
  if (i.commit) parts.push(`commit ${i.commit}`);
  if (i.date) parts.push(i.date);
  return parts.join(', ');
}

// The stable-fluids bench: a row per grid size.
function gridTable(run) {
  const threaded = run.rows.some((r) => r.speedup_vs_1_thread !== undefined);
  const head = ['grid', 'cells', 'M cell-steps/s', 'ms/step', 'ns/cell-step', 'projection iterations'];
  if (threaded) head.push('× 1 thread');
  const lines = [`| ${head.join(' | ')} |`, `|${head.map((h, k) => (k === 0 ? ' --- ' : ' ---: ')).join('|')}|`];
  for (const r of run.rows) {
    const cells = [r.grid, thousands(r.cells), mega(r.cell_steps_per_s), fixed(r.ms_per_step, 3),
      fixed(r.ns_per_cell_step, 1), fixed(r.projection_iterations, 1)];
    if (threaded) cells.push(fixed(r.speedup_vs_1_thread, 2));
    lines.push(`| ${cells.join(' | ')} |`);
  }
  return lines;
}

function rowsTable(run) {
  if (run.grid) return gridTable(run);
  const threaded = run.rows.some((r) => r.speedup_vs_1_thread !== undefined);
  const head = ['solver', 'particles', 'neighbours', 'M particle-steps/s', 'ms/step', 'bytes/particle',
    'iterations/step', 'ns/pass'];
  if (threaded) head.push('× 1 thread', 'copies at once');
  head.push(...STAGES.map((s) => `${s} ms`));
  const lines = [`| ${head.join(' | ')} |`, `|${head.map((h, k) => (k === 0 ? ' --- ' : ' ---: ')).join('|')}|`];
  for (const r of run.rows) {
    const dfsph = r.solver === 'dfsph';
    const cells = [r.solver, thousands(r.particles), fixed(r.neighbours, 1), mega(r.particle_steps_per_s),
      fixed(r.ms_per_step, 3), fixed(r.bytes_per_particle, 0), dfsph ? fixed(r.iterations_per_step, 1) : '–',
      dfsph ? fixed(r.pressure_ns_per_particle_pass, 1) : '–'];
    if (threaded) cells.push(fixed(r.speedup_vs_1_thread, 2), fixed(r.copies_at_once_vs_1_thread, 2));
    cells.push(...STAGES.map((s) => fixed(r.stage_ms ? r.stage_ms[s] : undefined, 3)));
    lines.push(`| ${cells.join(' | ')} |`);
  }
  return lines;
}

function summaryLines(run) {
  const s = run.summary;
  if (!s) return [];
  if (run.grid) {
    return [`- cost spread ${fixed(s.cost_spread, 2)}× per cell-step, slowest size over fastest`,
      `- 60-fps capacity: ${s.capacity_grid} cells along the longer side (${fixed(s.capacity_frame_ms, 1)} ms a frame)`];
  }
  const out = [];
  for (const [solver, v] of Object.entries(s.cost_spread || {})) {
    const pass = s.pass_cost_spread && s.pass_cost_spread[solver];
    out.push(`- cost spread ${solver}: ${fixed(v, 2)}× per particle-step, slowest size over fastest` +
      (pass ? `; ${fixed(pass, 2)}× per particle-pass of the solves` : ''));
  }
  if (s.reference_particle_steps_per_s) {
    out.push(`- seed-000 reference (hash map and neighbour lists) at ${thousands(s.reference_particles)} particles: ` +
      `${mega(s.reference_particle_steps_per_s)} M particle-steps/s; muller2003 ${fixed(s.ratio, 2)}× as fast`);
  }
  for (const [solver, n] of Object.entries(s.capacity_60fps || {})) {
    const height = s.capacity_height_ratio && s.capacity_height_ratio[solver];
    const peak = s.capacity_peak_bytes_per_particle && s.capacity_peak_bytes_per_particle[solver];
    out.push(`- 60-fps capacity ${solver}: ${thousands(n)} particles` +
      (height ? ` (pool at ${fixed(100 * height, 1)} % of the area-conserving height at t = 5.5–6 s` : ' (') +
      (peak ? `; peak ${peak} bytes a particle)` : ')'));
  }
  return out;
}

function tablesRegion(runs) {
  const latest = latestRuns(runs);
  if (!latest.length) return ['No results yet: see "Adding a result" above.'];
  const out = [];
  for (const run of latest) {
    out.push(`### ${run.grid ? 'Stable fluids, ' : ''}${BUILD_NAMES[run.info.build] || run.info.build}, ` +
      `${run.threads} thread${run.threads > 1 ? 's' : ''}`);
    out.push('');
    out.push(`\`bench/results/${run.file}\`: ${describe(run)}.` + (run.info.command ? ` \`${run.info.command}\`.` : ''));
    if (run.info.note) out.push(run.info.note);
    out.push('');
    out.push(...rowsTable(run));
    const summary = summaryLines(run);
    if (summary.length) out.push('', ...summary);
    out.push('');
  }
  const older = runs.filter((r) => !latest.includes(r)).map((r) => `\`${r.file}\``);
  if (older.length) out.push(`Older results, not shown: ${older.join(', ')}.`, '');
  while (out.length && out[out.length - 1] === '') out.pop();
  return out;
}

// ---------------------------------------------------------------------------
// Targets: where each stands in the newest run of each kind

function status(met, total) {
  if (total === 0) return 'no data';
  if (met === total) return '**met**';
  return met === 0 ? '**not met**' : `**partly met** (${met} of ${total})`;
}

const mark = (ok) => (ok ? ' (met)' : ' (not met)');

function targetRows(runs) {
  const latest = latestRuns(runs).filter((r) => !r.grid);
  const one = latest.filter((r) => r.threads === 1);
  const many = latest.filter((r) => r.threads > 1);
  const rows = [];
  const src = (r) => `\`${r.file}\``;
  for (const t of TARGETS) {
    const results = [];
    let met = 0, total = 0;
    if (t.key === 'throughput') {
      for (const r of one) {
        const m = r.rows.filter((x) => x.solver === 'muller2003');
        if (!m.length) continue;
        const goal = t.goal[r.info.build] || t.goal.native;
        const ok = m.filter((x) => x.particle_steps_per_s >= goal).length;
        results.push(`${r.info.build}: ${range(m.map((x) => x.particle_steps_per_s), mega)} M over ` +
          `${thousands(m[0].particles)}–${thousands(m[m.length - 1].particles)} particles, ${ok} of ${m.length} sizes` +
          `${mark(ok === m.length)} (${src(r)})`);
        met += ok === m.length ? 1 : 0;
        total += 1;
      }
    } else if (t.key === 'spread') {
      for (const r of one) {
        if (!r.summary || !r.summary.cost_spread) continue;
        const sizes = r.rows.map((x) => x.particles);
        const parts = Object.entries(r.summary.cost_spread).map(([s, v]) => {
          total += 1;
          met += v <= t.goal ? 1 : 0;
          return `${s} ${fixed(v, 2)}×${mark(v <= t.goal)}`;
        });
        results.push(`${r.info.build} (${thousands(Math.min(...sizes))}–${thousands(Math.max(...sizes))}): ${parts.join(', ')} (${src(r)})`);
      }
    } else if (t.key === 'flip-capacity') {
      for (const r of one) {
        const c = r.summary && r.summary.capacity_60fps;
        if (!c || c.flip === undefined) continue;
        const wasm = r.info.build !== 'native';
        if (wasm) {
          total += 1;
          met += c.flip >= t.goal ? 1 : 0;
        }
        const parts = Object.entries(c).map(([s, n]) => `${s} ${thousands(n)}`);
        results.push(`${r.info.build}${wasm ? '' : ' (for comparison)'}: ${parts.join(', ')}` +
          `${wasm ? mark(c.flip >= t.goal) : ''} (${src(r)})`);
      }
      if (!total) results.push('no wasm run of FLIP in `bench/results/` yet');
    } else if (t.key === 'flip-tank') {
      for (const r of one) {
        const v = r.summary && r.summary.flip_tank_4x_step_ratio;
        if (v === undefined) continue;
        total += 1;
        met += v <= t.goal ? 1 : 0;
        results.push(`${r.info.build}: ${fixed(v, 2)}×${mark(v <= t.goal)} (${src(r)})`);
      }
    }
    rows.push(`| ${t.name} | ${t.goalText} | ${results.join('<br>') || '–'} | ${status(met, total)} |`);
  }
  return ['| target | goal | latest results | status |', '| --- | --- | --- | --- |', ...rows];
}

// ---------------------------------------------------------------------------
// The document

function replaceRegion(text, name, lines) {
  const begin = `<!-- ${name}:begin -->`, end = `<!-- ${name}:end -->`;
  const a = text.indexOf(begin), b = text.indexOf(end);
  if (a < 0 || b < a) throw new Error(`${path.relative(ROOT, DOC)}: no ${begin} ... ${end} region`);
  const note = `<!-- generated by scripts/bench-tables.mjs from bench/results/*.json: edit the data, not this -->`;
  return text.slice(0, a) + [begin, note, '', ...lines, '', end].join('\n') + text.slice(b + end.length);
}

function render(text, runs) {
  return replaceRegion(replaceRegion(text, 'tables', tablesRegion(runs)), 'targets', targetRows(runs));
}

// ---------------------------------------------------------------------------
// Recording a run

function cpuInfo() {
  try {
    const info = fs.readFileSync('/proc/cpuinfo', 'utf8');
    const field = (name) => (info.match(new RegExp(`^${name}\\s*:\\s*(.*)$`, 'm')) || [])[1];
    const model = (field('model name') || os.cpus()[0].model).trim();
    const family = field('cpu family'), number = field('model');
    return family ? `${model} (family ${family}, model ${number})` : model;
  } catch {
    return os.cpus().length ? os.cpus()[0].model : 'unknown CPU';
  }
}

function slug(text) {
  return text.toLowerCase().replace(/\(family (\d+), model (\d+)\)/, 'f$1m$2')
    .replace(/\b(amd|intel|processor|cpu|\(r\)|\(tm\))\b/g, '').replace(/[^a-z0-9]+/g, '-').replace(/^-|-$/g, '');
}

function gitCommit() {
  try {
    const rev = execFileSync('git', ['-C', ROOT, 'rev-parse', '--short', 'HEAD'], { encoding: 'utf8' }).trim();
    const dirty = execFileSync('git', ['-C', ROOT, 'status', '--porcelain', '--', 'src'], { encoding: 'utf8' }).trim();
    return dirty ? `${rev} + changes` : rev;
  } catch {
    return undefined;
  }
}

function record(args) {
  const opt = {};
  for (let k = 0; k < args.length; k += 2) opt[args[k].replace(/^--/, '')] = args[k + 1];
  const build = opt.record;
  if (!BUILDS.includes(build)) throw new Error(`--record BUILD: one of ${BUILDS.join(', ')}`);
  const lines = fs.readFileSync(0, 'utf8').split('\n').filter((l) => l.trim().startsWith('{'));
  const objects = lines.map((l) => JSON.parse(l));
  const rows = objects.filter((o) => o.solver);
  if (!rows.length) throw new Error('--record: no bench rows on stdin (pipe `tidepool bench --json` in)');
  const threads = Math.max(...rows.map((r) => r.threads || 1));
  const info = {
    build,
    cpu: opt.cpu || cpuInfo(),
    cores: os.cpus().length,
    date: new Date().toISOString().slice(0, 10),
    commit: opt.commit || gitCommit(),
  };
  if (build === 'wasm') info.runtime = `node ${process.version}`;
  if (opt.command) info.command = opt.command;
  if (opt.note) info.note = opt.note;
  fs.mkdirSync(RESULTS, { recursive: true });
  let name = opt.name || `${build}-${slug(info.cpu)}-${info.date}${threads > 1 ? `-threads${threads}` : ''}`;
  const base = name;  // a second run of the day gets -2, -3, ...
  for (let k = 2; !opt.name && fs.existsSync(path.join(RESULTS, `${name}.json`)); ++k) name = `${base}-${k}`;
  const file = path.join(RESULTS, `${name}.json`);
  fs.writeFileSync(file, [JSON.stringify({ run: info }), ...lines.map((l) => l.trim())].join('\n') + '\n');
  console.error(`bench-tables: ${path.relative(ROOT, file)}: ${rows.length} rows`);
}

// ---------------------------------------------------------------------------

function main() {
  const args = process.argv.slice(2);
  if (args[0] === '--record') record(args);
  else if (args.length && args[0] !== '--check') {
    console.error('usage: node scripts/bench-tables.mjs [--check | --record BUILD [--name N] [--commit R] [--note T] [--command C]]');
    process.exit(2);
  }
  const runs = readRuns();
  const before = fs.readFileSync(DOC, 'utf8');
  const after = render(before, runs);
  if (args[0] === '--check') {
    if (after !== before) {
      console.error('bench-tables: docs/performance.md differs from bench/results/ (run node scripts/bench-tables.mjs)');
      process.exit(1);
    }
    console.error(`bench-tables: docs/performance.md matches ${runs.length} result file(s)`);
    return;
  }
  if (after !== before) fs.writeFileSync(DOC, after);
  console.error(`bench-tables: docs/performance.md from ${runs.length} result file(s)`);
}

try {
  main();
} catch (e) {
  console.error(`bench-tables: ${e.message}`);
  process.exit(1);
}
