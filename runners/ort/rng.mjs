// The seeded generator every drawn value comes from: mulberry32, seeded per stream (an input's or a token stream's
// name) through fnv1a, so adding or reordering inputs does not change another input's values. The C++ side has the
// same generator (src/backends/common/feeds.h) and the tests compare the two.

export function fnv1a(str) {
  let h = 0x811c9dc5;
  for (let i = 0; i < str.length; ++i) {
    h ^= str.charCodeAt(i);
    h = Math.imul(h, 0x01000193) >>> 0;
  }
  return h >>> 0;
}
export function mulberry32(a) {
  return () => {
    a = (a + 0x6d2b79f5) | 0;
    let t = Math.imul(a ^ (a >>> 15), 1 | a);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}
// 53-bit uniform in [0,1) from two draws, for integer ranges wider than 2^32.
export const uniform53 = (r) => (Math.floor(r() * 2097152) * 4294967296 + Math.floor(r() * 4294967296)) / 9007199254740992;
