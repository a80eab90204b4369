// Tidepool dev server: serves the web build (build/web/dist) and the example
// pages in web/site/, with the right MIME type for .wasm; /bench/ is the
// browser build of the CLI (build/web/bench) that web/site/bench.html runs.
//
//   node web/server.mjs [--port 8080] [--host 127.0.0.1] [--root DIR]
//                       [--bench-root DIR] [--isolate | --no-isolate]
//
// --isolate (or TIDEPOOL_ISOLATE=1) adds the COOP/COEP headers that make the
// page cross-origin isolated, which the threads build (tidepool-mt.*) needs
// for SharedArrayBuffer; the shell loads it only then. It is off by default
// here because an iframe on somebody else's blog is not isolated either, and
// the toy must work there; tests run both ways. scripts/serve.sh turns it on.
//
// Without --isolate it is a plain static host: the page then isolates itself
// with its service worker (isolate.js) and runs the threads build, as on
// GitHub Pages.
//
// Also importable: startServer() returns {server, url, close()} (the browser
// tests start it in-process on a free port). It answers 404 for the service
// worker unless given serviceWorker: true, so that a test's page that is not
// isolated stays so, like the toy in an iframe on a blog, which no worker
// can isolate.
import http from 'node:http';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const here = path.dirname(fileURLToPath(import.meta.url));
export const defaultRoot = path.resolve(here, '..', 'build', 'web', 'dist');
export const defaultBenchRoot = path.resolve(here, '..', 'build', 'web', 'bench');
export const siteRoot = path.join(here, 'site');
// The bench's build output lives apart from dist/, which must hold only the
// toy (a static host gets exactly that folder).
const benchPrefix = '/bench/';

const types = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.mjs': 'text/javascript; charset=utf-8',
  '.wasm': 'application/wasm',
  '.css': 'text/css; charset=utf-8',
  '.json': 'application/json; charset=utf-8',
  '.png': 'image/png',
  '.svg': 'image/svg+xml',
  '.ico': 'image/x-icon',
  '.txt': 'text/plain; charset=utf-8',
};

// Resolves a URL path inside one of the roots, refusing anything that would
// step outside it (.., encoded slashes, NUL).
function resolveFile(roots, urlPath) {
  let rel;
  try {
    rel = decodeURIComponent(urlPath);
  } catch {
    return null;
  }
  if (rel.includes('\0')) return null;
  if (rel.endsWith('/')) rel += 'index.html';
  for (const root of roots) {
    const file = path.resolve(root, '.' + path.posix.normalize('/' + rel));
    if (!file.startsWith(root + path.sep)) continue;
    try {
      if (fs.statSync(file).isFile()) return file;
    } catch {
      // not in this root; try the next
    }
  }
  return null;
}

export function startServer({
  root = defaultRoot,
  benchRoot = defaultBenchRoot,
  port = 8080,
  host = '127.0.0.1',
  isolate = false,
  serviceWorker = false,
  log = false,
} = {}) {
  const roots = [path.resolve(root), siteRoot];
  const benchRoots = [path.resolve(benchRoot)];
  const server = http.createServer((req, res) => {
    const headers = {
      'Cache-Control': 'no-cache',
      'X-Content-Type-Options': 'nosniff',
    };
    if (isolate) {
      headers['Cross-Origin-Opener-Policy'] = 'same-origin';
      headers['Cross-Origin-Embedder-Policy'] = 'require-corp';
      headers['Cross-Origin-Resource-Policy'] = 'same-origin';
    }
    // A path such as "//" reads as a URL without a host and throws: answer
    // 400 rather than let one request stop the server.
    let url;
    try {
      url = new URL(req.url, 'http://localhost');
    } catch {
      res.writeHead(400, { ...headers, 'Content-Type': 'text/plain; charset=utf-8' });
      res.end('bad request\n');
      return;
    }
    if (req.method !== 'GET' && req.method !== 'HEAD') {
      res.writeHead(405, { ...headers, Allow: 'GET, HEAD' });
      res.end();
      return;
    }
    const hidden = !serviceWorker && url.pathname === '/isolate.js';
    const file = hidden
      ? null
      : url.pathname.startsWith(benchPrefix)
        ? resolveFile(benchRoots, url.pathname.slice(benchPrefix.length - 1))
        : resolveFile(roots, url.pathname);
    if (log) console.log(`${req.method} ${url.pathname} -> ${file ? 200 : 404}`);
    if (!file) {
      res.writeHead(404, { ...headers, 'Content-Type': 'text/plain; charset=utf-8' });
      res.end('not found\n');
      return;
    }
    const type = types[path.extname(file).toLowerCase()] || 'application/octet-stream';
    const size = fs.statSync(file).size;
    res.writeHead(200, { ...headers, 'Content-Type': type, 'Content-Length': size });
    if (req.method === 'HEAD') {
      res.end();
      return;
    }
    fs.createReadStream(file).pipe(res);
  });
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => {
      const { port: actual } = server.address();
      const url = `http://${host.includes(':') ? `[${host}]` : host}:${actual}/`;
      resolve({ server, url, close: () => new Promise((r) => server.close(r)) });
    });
  });
}

function parseArgs(argv) {
  const opts = {
    port: Number(process.env.PORT || 8080),
    host: process.env.HOST || '127.0.0.1',
    root: defaultRoot,
    benchRoot: defaultBenchRoot,
    isolate: /^(1|true|yes)$/i.test(process.env.TIDEPOOL_ISOLATE || ''),
    serviceWorker: true,
    log: false,
  };
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i];
    if (a === '--port') opts.port = Number(argv[++i]);
    else if (a === '--host') opts.host = argv[++i];
    else if (a === '--root') opts.root = argv[++i];
    else if (a === '--bench-root') opts.benchRoot = argv[++i];
    else if (a === '--isolate') opts.isolate = true;
    else if (a === '--no-isolate') opts.isolate = false;
    else if (a === '--log') opts.log = true;
    else if (a === '-h' || a === '--help') {
      console.log('usage: node web/server.mjs [--port N] [--host H] [--root DIR] [--bench-root DIR] [--isolate|--no-isolate] [--log]');
      process.exit(0);
    } else {
      console.error(`server.mjs: unknown argument ${a}`);
      process.exit(2);
    }
  }
  if (!Number.isInteger(opts.port) || opts.port < 0 || opts.port > 65535) {
    console.error('server.mjs: --port must be 0..65535');
    process.exit(2);
  }
  return opts;
}

if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const opts = parseArgs(process.argv.slice(2));
  if (!fs.existsSync(path.join(opts.root, 'index.html'))) {
    console.error(`server.mjs: ${opts.root}/index.html is missing: run scripts/build-web.sh first`);
    process.exit(1);
  }
  startServer(opts).then(
    ({ url }) => {
      console.log(`Tidepool: ${url}`);
      console.log(`  embed example: ${url}embed.html`);
      console.log(`  bench (wasm, in this browser): ${url}bench.html  (?args=--quick for a short run; &threads=2 when isolated)`);
      console.log(
        `  cross-origin isolated (COOP/COEP): ${opts.isolate ? 'yes: the threads build runs' : 'no headers: the page isolates itself with its service worker, as on a static host'}`,
      );
      console.log('  Ctrl-C to stop');
    },
    (err) => {
      console.error(`server.mjs: cannot listen on ${opts.host}:${opts.port}: ${err.message}`);
      process.exit(1);
    },
  );
}
