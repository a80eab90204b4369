// The page as a host serves it: shell/index.html without its comments and
// indentation (a quarter of its gzipped weight), which the build writes
// into the page's folder (src/app/CMakeLists.txt).
//
//   node shell/pack.mjs IN OUT
//
// Removed: HTML comments, /* */ comments (CSS and script; no string in the
// page holds one), lines that are only a // comment, and leading spaces.
// A // after code stays: it may be inside a string ('https://...').
import fs from 'node:fs';

const [input, output] = process.argv.slice(2);
if (!input || !output) {
  console.error('usage: node shell/pack.mjs IN OUT');
  process.exit(2);
}
const page = fs
  .readFileSync(input, 'utf8')
  .replace(/<!--[\s\S]*?-->/g, '')
  .replace(/\/\*[\s\S]*?\*\//g, '')
  .replace(/^[ \t]*\/\/.*\n/gm, '')
  .replace(/^[ \t]+/gm, '')
  .replace(/\n{2,}/g, '\n');
fs.writeFileSync(output, page);
