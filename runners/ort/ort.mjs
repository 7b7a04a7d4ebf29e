// The ONNX Runtime build this runner drives, loaded once for every module of the runner: onnxruntime-node (the native
// build), or with `--build web` onnxruntime-web (ONNX Runtime Web: the WebAssembly build, its Node entry). run.mjs
// imports this module first, so a runner folder without its packages exits 69 and says what to install before
// anything else runs.
import path from 'node:path';
import { createRequire } from 'node:module';
import { log } from './errors.mjs';
import { watchWasmMemories } from './wasm_memory.mjs';

const require = createRequire(import.meta.url);
const at = process.argv.indexOf('--build');
// 'node' (onnxruntime-node) or 'web' (onnxruntime-web).
export const build = at > 0 && process.argv[at + 1] === 'web' ? 'web' : 'node';
const pkg = build === 'web' ? 'onnxruntime-web' : 'onnxruntime-node';

// Where the web build runs its model: 'node' (this process) or, with `--host chromium`, a headless Chromium page
// (chromium_host.mjs; this process still builds the inputs with the package's Node entry). `--isolation off` serves
// that page without cross-origin isolation, as most sites are: no SharedArrayBuffer, so no WebAssembly threads.
const option = (name) => {
  const i = process.argv.indexOf(name);
  return i > 0 ? process.argv[i + 1] : undefined;
};
export const host = option('--host') ?? 'node';
export const isolation = option('--isolation') !== 'off';
if (!['node', 'chromium'].includes(host) || (host === 'chromium' && build !== 'web') ||
    !['on', 'off', undefined].includes(option('--isolation'))) {
  log('usage: node run.mjs [--build node|web] [--build web --host node|chromium [--isolation on|off]]');
  process.exit(64);
}

export let ort;
// Before the import: ORT Web's glue creates its WebAssembly memory (wasm_memory.mjs reads its size).
if (build === 'web') watchWasmMemories();
try {
  ort = build === 'web' ? await import(pkg) : require(pkg);
} catch (e) {
  log(`cannot load ${pkg} (run \`npm ci --ignore-scripts\` in ${path.dirname(new URL(import.meta.url).pathname)}):`,
      String(e.message).split('\n')[0]);
  process.exit(69);
}

// The build's version as its package reports it.
export function runtimeVersion() {
  return (build === 'web' ? ort.env.versions.web : ort.env.versions.node) ?? null;
}
