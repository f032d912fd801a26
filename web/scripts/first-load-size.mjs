// Prints the gzipped size of the JavaScript the landing page downloads on its first load: the
// entry script of dist/index.html plus every chunk it preloads (its static imports). Pages
// loaded later (React.lazy / route lazy) are not counted. Run after `npm run build`.
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { gzipSync } from "node:zlib";

const BUDGET_KB = 150;
const dist = new URL("../dist/", import.meta.url).pathname;
const html = readFileSync(join(dist, "index.html"), "utf8");
const files = [
  ...html.matchAll(/<script type="module"[^>]*src="\/([^"]+\.js)"/g),
  ...html.matchAll(/<link rel="modulepreload"[^>]*href="\/([^"]+\.js)"/g),
].map((match) => match[1]);

let total = 0;
for (const file of files) {
  const gz = gzipSync(readFileSync(join(dist, file))).length;
  total += gz;
  console.log(`${(gz / 1000).toFixed(2).padStart(8)} kB  ${file}`);
}
console.log(`${(total / 1000).toFixed(2).padStart(8)} kB  total gzipped JS, first load of / (budget ${BUDGET_KB} kB)`);
if (total / 1000 > BUDGET_KB) process.exitCode = 1;
