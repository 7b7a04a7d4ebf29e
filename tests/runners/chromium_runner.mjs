// What the tests of the Chromium host share: whether they can run here (else the reason they are skipped), and a
// runner started with `--build web --host chromium` to talk to one message at a time.
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import readline from 'node:readline';
import { after } from 'node:test';
import { fileURLToPath } from 'node:url';

export const repo = fileURLToPath(new URL('../../', import.meta.url));
const runner = path.join(repo, 'runners/ort/run.mjs');
const CHROMIUM = process.env.ROOFLENS_CHROMIUM || '/usr/bin/chromium';

// false when the Chromium host can run here; else why not (node:test's `skip` takes either).
export const skipChromium =
  (!fs.existsSync(CHROMIUM) && `no Chromium at ${CHROMIUM} (Debian package chromium)`) ||
  (!fs.existsSync(path.join(repo, 'web/node_modules/playwright-core/package.json')) &&
   'playwright-core not installed in web/node_modules (make deps)') ||
  (!fs.existsSync(path.join(repo, 'runners/ort/node_modules/onnxruntime-web/package.json')) &&
   'onnxruntime-web not installed (make deps)');

// Runners a test started and did not see end. A test whose assertion fails never reaches its quit(): its runner (and
// Chromium) would keep this file's process alive, and the suite would wait on it instead of reporting the failure.
const running = new Set();
after(() => {
  for (const child of running) child.kill('SIGKILL');
});

// ask() resolves with the next reply, `exited` with the exit code; quit() checks the runner ends cleanly.
export function startChromiumRunner(args, env = {}) {
  const child = spawn(process.execPath, [runner, '--build', 'web', '--host', 'chromium', ...args],
                      { stdio: ['pipe', 'pipe', 'pipe'], env: { ...process.env, ...env } });
  running.add(child);
  child.on('close', () => running.delete(child));
  let stderr = '', id = 0;
  const waiting = [];
  child.stderr.on('data', (d) => { stderr += d; });
  readline.createInterface({ input: child.stdout }).on('line', (l) => waiting.shift()?.(JSON.parse(l)));
  const exited = new Promise((resolve) => child.on('close', (code) => resolve(code)));
  return {
    pid: child.pid,
    exited,
    stderr: () => stderr,
    ask(msg) {
      const reply = new Promise((resolve) => waiting.push(resolve));
      child.stdin.write(JSON.stringify({ id: ++id, ...msg }) + '\n');
      return reply;
    },
    async quit() {
      assert.equal((await this.ask({ op: 'quit' })).ok, true);
      assert.equal(await exited, 0, stderr);
    },
  };
}
