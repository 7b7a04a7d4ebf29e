// onnxruntime-node, loaded once for every module of the runner. run.mjs imports this module first, so a runner
// folder without its packages exits 69 and says what to install before anything else runs.
import path from 'node:path';
import { createRequire } from 'node:module';
import { log } from './errors.mjs';

const require = createRequire(import.meta.url);

export let ort;
try {
  ort = require('onnxruntime-node');
} catch (e) {
  log(`cannot load onnxruntime-node (run \`npm ci --ignore-scripts\` in ${path.dirname(new URL(import.meta.url).pathname)}):`,
      String(e.message).split('\n')[0]);
  process.exit(69);
}
