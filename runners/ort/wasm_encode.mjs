// A small encoder of WebAssembly's binary format (https://webassembly.github.io/spec/core/binary/), enough for the
// measuring kernels of wasm_roofs.mjs: function types, an imported memory, functions with locals, exports, and the
// instructions those kernels use (control, locals, i32 arithmetic, f32, SIMD128, relaxed SIMD's madd). Written here
// rather than taken from a toolchain so that the runner needs nothing new (no wat2wasm, no download) and every byte
// the roofs were measured with can be read in this repository. Pure ES module: runs in Node and in a browser page.

// Value types.
export const i32 = 0x7f, i64 = 0x7e, f32 = 0x7d, f64 = 0x7c, v128 = 0x7b;

// LEB128, as the format spells every integer: unsigned for sizes and indices, signed for i32.const and block types.
export function uleb(n) {
  if (!Number.isInteger(n) || n < 0) throw new RangeError(`uleb: ${n} is not a non-negative integer`);
  const out = [];
  do {
    let b = n % 128;
    n = Math.floor(n / 128);
    if (n) b |= 0x80;
    out.push(b);
  } while (n);
  return out;
}

export function sleb(n) {
  if (!Number.isInteger(n)) throw new RangeError(`sleb: ${n} is not an integer`);
  const out = [];
  for (;;) {
    const b = n & 0x7f;
    n = Math.floor(n / 128);  // an arithmetic shift that also holds past 32 bits
    const done = (n === 0 && !(b & 0x40)) || (n === -1 && (b & 0x40));
    out.push(done ? b : b | 0x80);
    if (done) return out;
  }
}

const utf8 = (s) => [...new TextEncoder().encode(s)];
const name = (s) => { const b = utf8(s); return [...uleb(b.length), ...b]; };
const vec = (items) => [...uleb(items.length), ...items.flat(Infinity)];
const section = (id, body) => (body.length ? [id, ...uleb(body.length), ...body] : []);

function f32Bytes(x) {
  const b = new Uint8Array(4);
  new DataView(b.buffer).setFloat32(0, x, true);
  return [...b];
}

// SIMD instructions are the 0xfd prefix followed by their number as an unsigned LEB128.
const simd = (n) => [0xfd, ...uleb(n)];
// A memory access's immediate: log2 of the alignment it promises (a hint only), then the constant offset.
const memarg = (offset, alignLog2) => [...uleb(alignLog2), ...uleb(offset)];

// Instructions, each an array of bytes; a function body is any nesting of these arrays (flattened when encoded).
export const op = {
  // Control. `block`/`loop` take a block type: 0x40 = no result.
  block: [0x02, 0x40], loop: [0x03, 0x40], end: [0x0b],
  br: (depth) => [0x0c, ...uleb(depth)], brIf: (depth) => [0x0d, ...uleb(depth)],
  drop: [0x1a],
  // Locals (parameters first, then the declared locals, in one index space).
  localGet: (i) => [0x20, ...uleb(i)], localSet: (i) => [0x21, ...uleb(i)], localTee: (i) => [0x22, ...uleb(i)],
  // i32.
  i32Const: (n) => [0x41, ...sleb(n | 0)],
  i32Eqz: [0x45], i32Ne: [0x47], i32LtU: [0x49],
  i32Add: [0x6a], i32Sub: [0x6b], i32ShrU: [0x76],
  // f32.
  f32Const: (x) => [0x43, ...f32Bytes(x)],
  f32Add: [0x92], f32Mul: [0x94],
  // SIMD128 (opcodes from the SIMD proposal's final numbering, now in the core spec).
  v128Load: (offset = 0, alignLog2 = 4) => [...simd(0x00), ...memarg(offset, alignLog2)],
  v128Store: (offset = 0, alignLog2 = 4) => [...simd(0x0b), ...memarg(offset, alignLog2)],
  v128Const: (bytes16) => [...simd(0x0c), ...bytes16],
  f32x4Splat: simd(0x13),
  f32x4ExtractLane: (lane) => [...simd(0x1f), lane],
  i16x8Splat: simd(0x10),
  i32x4ExtractLane: (lane) => [...simd(0x1b), lane],
  i32x4Add: simd(0xae), i32x4DotI16x8S: simd(0xba),
  f32x4Add: simd(0xe4), f32x4Mul: simd(0xe6),
  // Relaxed SIMD: a*b + c, fused or not as the hardware does it (the proposal leaves it to the engine).
  f32x4RelaxedMadd: simd(0x105),
};

// A module: types are deduplicated from the functions' signatures, the memory (when any) is imported as
// env.memory, every function is exported under its name.
export class ModuleBuilder {
  constructor() {
    this.types = [];      // encoded function types, index = type index
    this.funcs = [];      // { name, type, locals, body }
    this.memory = null;   // { module, field, min, max, shared }
  }

  // An imported linear memory, in 64 KiB pages. `shared` memories need a maximum (the threads proposal's rule).
  importMemory({ module = 'env', field = 'memory', min = 1, max = undefined, shared = false } = {}) {
    if (shared && max === undefined) throw new Error('a shared memory needs a maximum');
    this.memory = { module, field, min, max, shared };
    return this;
  }

  typeIndex(params, results) {
    const enc = [0x60, ...vec(params), ...vec(results)].join(',');
    let i = this.types.indexOf(enc);
    if (i < 0) i = this.types.push(enc) - 1;
    return i;
  }

  // `locals`: a list of [count, type] runs; `body`: nested arrays of instruction bytes, without the final `end`.
  func(fname, { params = [], results = [], locals = [], body }) {
    this.funcs.push({ name: fname, type: this.typeIndex(params, results), locals, body });
    return this;
  }

  bytes() {
    const types = vec(this.types.map((t) => t.split(',').map(Number)));
    let imports = [];
    if (this.memory) {
      const m = this.memory;
      const flags = (m.max !== undefined ? 1 : 0) | (m.shared ? 2 : 0);
      const limits = [flags, ...uleb(m.min), ...(m.max !== undefined ? uleb(m.max) : [])];
      imports = vec([[...name(m.module), ...name(m.field), 0x02, ...limits]]);
    }
    const funcIndex = vec(this.funcs.map((f) => uleb(f.type)));
    const exports = vec(this.funcs.map((f, i) => [...name(f.name), 0x00, ...uleb(i)]));
    const code = vec(this.funcs.map((f) => {
      const body = [...vec(f.locals.map(([n, t]) => [...uleb(n), t])), ...[f.body].flat(Infinity), 0x0b];
      return [...uleb(body.length), ...body];
    }));
    return new Uint8Array([
      0x00, 0x61, 0x73, 0x6d, 0x01, 0x00, 0x00, 0x00,  // "\0asm", version 1
      ...section(1, types), ...section(2, imports), ...section(3, funcIndex), ...section(7, exports),
      ...section(10, code),
    ]);
  }
}
