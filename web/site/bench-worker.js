// Runs `tidepool bench ARGS` (the CLI built for the browser, served under
// /bench/) in this worker: the bench blocks its thread for as long as it
// runs, which must not be the page's. Each line the program prints is posted
// at once, so the page shows results while later sizes are still running.
//
// In:  {args: [...], threads: bool}  (threads: the -pthread build,
//      tidepool-cli-mt.*, which needs a cross-origin isolated page)
// Out: {type: 'out'|'err', line}, {type: 'exit', code}, {type: 'abort', what}
'use strict';
self.onmessage = (e) => {
  self.onmessage = null;  // one run per worker: the program exits its runtime
  const base = new URL('bench/', self.location.href).href;
  const post = (m) => self.postMessage(m);
  const script = base + (e.data.threads ? 'tidepool-cli-mt.js' : 'tidepool-cli.js');
  // Emscripten's glue reads this global when the script loads.
  self.Module = {
    arguments: ['bench', ...e.data.args.map(String)],
    locateFile: (file) => base + file,
    // The threads' workers load the program from here: in a worker the
    // glue cannot find its own script (no document.currentScript).
    mainScriptUrlOrBlob: script,
    print: (line) => post({ type: 'out', line }),
    printErr: (line) => post({ type: 'err', line }),
    onExit: (code) => post({ type: 'exit', code }),
    onAbort: (what) => post({ type: 'abort', what: String(what) }),
  };
  try {
    importScripts(script);
  } catch (err) {
    post({ type: 'abort', what: `cannot load ${script} (${err.message}); run scripts/build-web.sh` });
  }
};
