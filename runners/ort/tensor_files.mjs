// Input files: ONNX TensorProto (.pb, as in test_data_set_*/input_*.pb) and NumPy (.npy), read into
// {name, dtype, dims, data} with the typed array of the dtype. Malformed files are `input` errors naming the file.
import fs from 'node:fs';
import { MessageError, inputError } from './errors.mjs';
import { BYTES, TYPED } from './dtypes.mjs';

const ONNX_DTYPES = {
  1: 'float32', 2: 'uint8', 3: 'int8', 4: 'uint16', 5: 'int16', 6: 'int32', 7: 'int64', 8: 'string', 9: 'bool',
  10: 'float16', 11: 'float64', 12: 'uint32', 13: 'uint64',
};

function copyTyped(dtype, buf, count) {
  const need = count * BYTES[dtype];
  if (buf.length !== need) throw inputError(`${dtype} data holds ${buf.length} bytes, the dims need ${need}`);
  const ab = new ArrayBuffer(need);  // copy: the source may be unaligned
  new Uint8Array(ab).set(buf);
  return new TYPED[dtype](ab);
}

class WireReader {
  constructor(buf) { this.buf = buf; this.pos = 0; }
  eof() { return this.pos >= this.buf.length; }
  varint() {  // BigInt, unsigned 64-bit
    let result = 0n, shift = 0n;
    for (let i = 0; i < 10; ++i) {
      if (this.pos >= this.buf.length) throw inputError('truncated varint');
      const b = this.buf[this.pos++];
      result |= BigInt(b & 0x7f) << shift;
      if (!(b & 0x80)) return result;
      shift += 7n;
    }
    throw inputError('malformed varint');
  }
  uint() {
    const v = this.varint();
    if (v > BigInt(Number.MAX_SAFE_INTEGER)) throw inputError('length out of range');
    return Number(v);
  }
  bytes(n) {
    if (this.pos + n > this.buf.length) throw inputError('truncated field');
    const b = this.buf.subarray(this.pos, this.pos + n);
    this.pos += n;
    return b;
  }
  skip(wt) {
    if (wt === 0) this.varint();
    else if (wt === 1) this.bytes(8);
    else if (wt === 2) this.bytes(this.uint());
    else if (wt === 5) this.bytes(4);
    else throw inputError(`unsupported wire type ${wt}`);
  }
}

function parseTensorProto(buf) {
  const r = new WireReader(buf);
  const t = { dims: [], dataType: 0, name: '', raw: null, floats: [], doubles: [], ints32: [], ints64: [], uints64: [],
    strings: [] };
  // Repeated scalars come packed (wire type 2) or one per tag; read both.
  const repeated = (wt, list, readOne) => {
    if (wt === 2) {
      const sub = new WireReader(r.bytes(r.uint()));
      while (!sub.eof()) list.push(readOne(sub));
    } else {
      list.push(readOne(r));
    }
  };
  const f32 = (w) => w.bytes(4).readFloatLE(0);
  const f64 = (w) => w.bytes(8).readDoubleLE(0);
  const s64 = (w) => BigInt.asIntN(64, w.varint());
  const u64 = (w) => w.varint();
  while (!r.eof()) {
    const key = r.uint();
    const field = Math.floor(key / 8), wt = key & 7;
    switch (field) {
      case 1: repeated(wt, t.dims, (w) => Number(s64(w))); break;
      case 2: t.dataType = r.uint(); break;
      case 4: repeated(wt, t.floats, f32); break;
      case 5: repeated(wt, t.ints32, s64); break;
      case 6: t.strings.push(r.bytes(r.uint()).toString('utf8')); break;
      case 7: repeated(wt, t.ints64, s64); break;
      case 8: t.name = r.bytes(r.uint()).toString('utf8'); break;
      case 9: t.raw = r.bytes(r.uint()); break;
      case 10: repeated(wt, t.doubles, f64); break;
      case 11: repeated(wt, t.uints64, u64); break;
      case 13: case 14: {  // external_data / data_location
        if (field === 14) { if (r.uint() === 1) throw inputError('tensors with external data are not supported'); }
        else r.skip(wt);
        break;
      }
      default: r.skip(wt);
    }
  }
  const dtype = ONNX_DTYPES[t.dataType];
  if (!dtype) throw inputError(`unsupported TensorProto data_type ${t.dataType}`);
  const count = t.dims.reduce((a, b) => a * b, 1);
  if (dtype === 'string') {
    if (t.strings.length !== count) throw inputError(`string tensor '${t.name}' has ${t.strings.length} values, dims need ${count}`);
    return { name: t.name, dtype, dims: t.dims, data: t.strings };
  }
  let data;
  if (t.raw) {
    data = copyTyped(dtype, t.raw, count);
  } else {
    const src = dtype === 'float32' ? t.floats
      : dtype === 'float64' ? t.doubles
      : dtype === 'int64' ? t.ints64
      : dtype === 'uint32' || dtype === 'uint64' ? t.uints64
      : t.ints32;  // int32, int16, int8, uint16, uint8, bool, float16 (as bits)
    if (src.length !== count) {
      throw inputError(`${dtype} tensor '${t.name}' has ${src.length} values, dims need ${count} ` +
                       '(only TensorProto files are supported, not sequences or optionals)');
    }
    data = new TYPED[dtype](count);
    const big = dtype === 'int64' || dtype === 'uint64';
    for (let i = 0; i < count; ++i) {
      const v = src[i];
      data[i] = big ? (dtype === 'uint64' ? BigInt.asUintN(64, v) : v) : (typeof v === 'bigint' ? Number(BigInt.asIntN(32, v)) : v);
    }
  }
  return { name: t.name, dtype, dims: t.dims, data };
}

const NPY_DTYPES = {
  f4: 'float32', f8: 'float64', f2: 'float16', i1: 'int8', u1: 'uint8', i2: 'int16', u2: 'uint16',
  i4: 'int32', u4: 'uint32', i8: 'int64', u8: 'uint64', b1: 'bool',
};

function parseNpy(buf) {
  if (buf.length < 10 || buf.readUInt32BE(0) !== 0x934e554d || buf[4] !== 0x50 || buf[5] !== 0x59) {
    throw inputError('not a .npy file (bad magic)');
  }
  const major = buf[6];
  const hlen = major === 1 ? buf.readUInt16LE(8) : buf.readUInt32LE(8);
  const hstart = major === 1 ? 10 : 12;
  const header = buf.subarray(hstart, hstart + hlen).toString('latin1');
  const descr = /'descr'\s*:\s*'([^']*)'/.exec(header);
  const fortran = /'fortran_order'\s*:\s*(True|False)/.exec(header);
  const shape = /'shape'\s*:\s*\(([^)]*)\)/.exec(header);
  if (!descr || !fortran || !shape) throw inputError(`.npy header not understood: ${header.trim()}`);
  if (fortran[1] === 'True') throw inputError('.npy in Fortran order is not supported; save with C order');
  const d = descr[1];
  if (d[0] === '>' && d.slice(1) !== 'i1' && d.slice(1) !== 'u1') throw inputError(`big-endian .npy (${d}) is not supported`);
  const dtype = NPY_DTYPES[d.slice(1)];
  if (!dtype) throw inputError(`.npy dtype ${d} is not supported`);
  const dims = shape[1].split(',').map((s) => s.trim()).filter((s) => s.length).map(Number);
  const count = dims.reduce((a, b) => a * b, 1);
  return { name: '', dtype, dims, data: copyTyped(dtype, buf.subarray(hstart + hlen), count) };
}

export function loadTensorFile(file) {
  let buf;
  try {
    buf = fs.readFileSync(file);
  } catch (e) {
    throw inputError(`cannot read input file ${file}: ${e.code || e.message}`);
  }
  try {
    return file.toLowerCase().endsWith('.npy') ? parseNpy(buf) : parseTensorProto(buf);
  } catch (e) {
    if (e instanceof MessageError) throw inputError(`${file}: ${e.message}`);
    throw e;
  }
}
