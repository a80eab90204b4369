// The browser bench page: runs `tidepool bench ARGS` (the CLI compiled for
// the browser, /bench/tidepool-cli.js, or with --threads its -pthread build
// tidepool-cli-mt.js) in bench-worker.js and shows its
// output as it arrives. The state is also in window.tidepoolBench for tests
// and scripts: {args, lines, stderr, results, summary, done, exitCode, error,
// startedAt, firstResultAt, finishedAt} (times from performance.now();
// results and summary are parsed objects with --json, text lines without).
'use strict';
// A block, not a function: in strict code its declarations stay inside it.
{
  const $ = (id) => document.getElementById(id);
  const state = {
    args: [],
    lines: [],
    stderr: [],
    results: [],
    summary: null,
    done: false,
    exitCode: null,
    error: null,
    startedAt: 0,
    firstResultAt: null,
    finishedAt: null,
  };
  window.tidepoolBench = state;
  let ticker = null;  // the status line's clock while the bench runs

  // Query string -> bench arguments. Values go to the program's argv as
  // they are (it checks them and says what is wrong); nothing reaches the
  // page's markup except as text.
  function benchArgs(query) {
    const args = [];
    const known = new Set(['args', 'sizes', 'solver', 'capacity', 'quick', 'json', 'threads']);
    for (const key of query.keys())
      if (!known.has(key)) console.warn(`bench: unknown query parameter '${key}' ignored`);
    const text = query.get('args');
    if (text) args.push(...text.trim().split(/\s+/).filter(Boolean));
    if (query.get('quick') === '1') args.push('--quick');
    if (query.has('sizes')) args.push('--sizes', query.get('sizes'));
    if (query.has('solver')) args.push('--solver', query.get('solver'));
    if (query.get('capacity') === '0') args.push('--no-capacity');
    if (query.get('json') === '1') args.push('--json');
    if (query.has('threads')) args.push('--threads', query.get('threads'));
    return args;
  }

  const status = (text, error = false) => {
    $('status').textContent = text;
    $('status').classList.toggle('error', error);
  };
  const seconds = () => ((performance.now() - state.startedAt) / 1000).toFixed(1);
  const fmt = (v, digits) => (typeof v === 'number' ? v.toFixed(digits) : '');

  function appendOut(line, cls) {
    const span = document.createElement('span');
    if (cls) span.className = cls;
    span.textContent = line + '\n';
    $('out').append(span);
  }

  // A --json result row: kept, and shown as a row of the results table.
  function addResultRow(obj) {
    state.results.push(obj);
    if (state.firstResultAt === null) state.firstResultAt = performance.now();
    const tr = document.createElement('tr');
    for (const cell of [obj.solver, String(obj.particles), fmt(obj.neighbours, 1),
      obj.particle_steps_per_s.toExponential(3), fmt(obj.ms_per_step, 3),
      String(obj.bytes_per_particle), fmt(obj.iterations_per_step, 1),
      obj.solver_passes_per_step > 0 ? fmt(obj.pressure_ns_per_particle_pass, 1) : '-',
      obj.speedup_vs_1_thread ? `${fmt(obj.speedup_vs_1_thread, 2)}x` : '-',
      obj.copies_at_once_vs_1_thread ? `${fmt(obj.copies_at_once_vs_1_thread, 2)}x` : '-']) {
      const td = document.createElement('td');
      td.textContent = cell;
      tr.append(td);
    }
    $('results').tBodies[0].append(tr);
    $('results').hidden = false;
  }

  // The --json summary line: kept, and its capacities, cost spreads and
  // reference shown up top.
  function showJsonSummary(obj) {
    state.summary = obj;
    const caps = Object.entries(obj.capacity_60fps)
      .map(([solver, n]) => {
        const peak = (obj.capacity_peak_bytes_per_particle || {})[solver];
        return `60-fps capacity ${solver}: ${n} particles` + (peak ? `, peak ${peak} bytes a particle` : '');
      });
    for (const [solver, spread] of Object.entries(obj.cost_spread || {})) {
      const pass = (obj.pass_cost_spread || {})[solver];
      caps.push(`cost spread ${solver}: ${spread}x per particle-step` +
        (pass ? `, ${pass}x per particle-pass of the solves` : ''));
    }
    caps.push(`reference at ${obj.reference_particles} particles: ` +
      `${obj.reference_particle_steps_per_s.toExponential(3)} particle-steps/s, ratio ${obj.ratio}`);
    $('capacity').textContent = caps.join('\n');
  }

  // --json lines become table rows and the summary; the text table is
  // readable as it is, only its capacity lines are repeated up top.
  function onLine(line) {
    state.lines.push(line);
    appendOut(line);
    if (line.startsWith('{')) {
      let obj;
      try {
        obj = JSON.parse(line);
      } catch {
        return;
      }
      if (typeof obj.solver === 'string') addResultRow(obj);
      else if (obj.capacity_60fps) showJsonSummary(obj);
    } else if (/^(dfsph|muller2003)\s+\d+/.test(line)) {
      state.results.push(line);
      if (state.firstResultAt === null) state.firstResultAt = performance.now();
    } else if (line.startsWith('reference ') || line.startsWith('60-fps capacity') ||
      line.startsWith('cost spread ')) {
      state.summary = (state.summary ? state.summary + '\n' : '') + line;
      $('capacity').textContent = state.summary;
    }
  }

  function finish(code, error) {
    if (state.done) return;
    state.done = true;
    state.exitCode = code;
    state.error = error || null;
    state.finishedAt = performance.now();
    clearInterval(ticker);
    if (error) status(`failed after ${seconds()} s: ${error}`, true);
    else if (code === 0) status(`done in ${seconds()} s`);
    else status(`tidepool bench exited with status ${code} after ${seconds()} s (see the output below)`, true);
  }

  // Reads the arguments from the query string, checks that the browser can
  // run the bench, and starts it in bench-worker.js.
  function start() {
    const query = new URLSearchParams(location.search);
    state.args = benchArgs(query);
    $('args').value = state.args.join(' ');
    $('env').textContent = `${navigator.userAgent}; ${navigator.hardwareConcurrency || '?'} logical cores; ` +
      `cross-origin isolated: ${self.crossOriginIsolated ? 'yes' : 'no'}`;

    if (typeof WebAssembly !== 'object' || typeof Worker !== 'function') {
      status('This browser has no WebAssembly or no Web Workers: the bench cannot run here.', true);
      return;
    }
    // `--threads` runs the -pthread build, whose threads share memory: only a
    // cross-origin isolated page has SharedArrayBuffer.
    const threads = state.args.includes('--threads');
    if (threads && !self.crossOriginIsolated) {
      status('--threads needs a cross-origin isolated page (COOP/COEP headers, as scripts/serve.sh sends): ' +
        'this one is not, so the bench was not started.', true);
      state.done = true;
      state.error = 'not cross-origin isolated';
      return;
    }
    state.startedAt = performance.now();
    const label = ['tidepool', 'bench', ...state.args].join(' ');
    status(`running ${label} …`);
    ticker = setInterval(() => status(`running ${label} … ${seconds()} s`), 1000);

    const worker = new Worker('bench-worker.js');
    worker.onmessage = (e) => {
      const m = e.data;
      if (m.type === 'out') onLine(m.line);
      else if (m.type === 'err') {
        state.stderr.push(m.line);
        appendOut(m.line, 'stderr');
      } else if (m.type === 'exit') finish(m.code);
      else if (m.type === 'abort') {
        // abort() without a reason (the C library's) passes an empty one.
        const what = m.what || 'the program aborted (its last output is below)';
        console.error(`bench: ${what}`);
        finish(null, what);
      }
    };
    worker.onerror = (e) => {
      e.preventDefault();
      const what = e.message || 'the worker could not start (is /bench/tidepool-cli.js built? scripts/build-web.sh)';
      console.error(`bench: ${what}`);
      finish(null, what);
    };
    worker.postMessage({ args: state.args, threads });
  }

  start();
}
