// One colour per op type, the same in every chart and in the table. Op types get palette colours in order of
// their weight (time share, or FLOPs for a static report) so the heaviest ones are the most distinct.
const OP_PALETTE = [
  '#4e79a7', '#f28e2b', '#59a14f', '#e15759', '#76b7b2', '#edc948', '#b07aa1', '#ff9da7', '#9c755f', '#79706e',
  '#86bcb6', '#d4a6c8', '#8cd17d', '#f1ce63', '#a0cbe8', '#ffbe7d',
];

function makeOpColors(opsByWeight) {
  const map = new Map();
  opsByWeight.forEach((op, i) => {
    // Past the palette: evenly spread hues (golden angle), muted to sit with the palette.
    map.set(op, i < OP_PALETTE.length ? OP_PALETTE[i] : hslHex((i * 137.508) % 360, 0.38, 0.55));
  });
  return (op) => map.get(op) || '#9aa4b2';
}

function hslHex(hue, sat, light) {
  const f = (n) => {
    const k = (n + hue / 30) % 12;
    const c = light - sat * Math.min(light, 1 - light) * Math.max(-1, Math.min(k - 3, 9 - k, 1));
    return Math.round(c * 255).toString(16).padStart(2, '0');
  };
  return '#' + f(0) + f(8) + f(4);
}

// '#4e79a7' scaled towards black (factor < 1): header strips of the breakdown's op-type tiles.
function darker(hex, factor = 0.72) {
  const n = parseInt(hex.slice(1), 16);
  const ch = (shift) => Math.round(((n >> shift) & 255) * factor).toString(16).padStart(2, '0');
  return '#' + ch(16) + ch(8) + ch(0);
}

// Colours of chart furniture, read from the page's CSS so the charts follow the light/dark theme.
function chartTheme() {
  return {
    text: cssVar('--text'), muted: cssVar('--muted'), faint: cssVar('--faint'), grid: cssVar('--grid'),
    border: cssVar('--border'), panel: cssVar('--panel'), accent: cssVar('--accent'), warn: cssVar('--warn'),
    bad: cssVar('--bad'),
  };
}
