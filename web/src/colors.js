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
    map.set(op, i < OP_PALETTE.length ? OP_PALETTE[i] : 'hsl(' + Math.round((i * 137.508) % 360) + ', 38%, 55%)');
  });
  return (op) => map.get(op) || '#9aa4b2';
}

// Colours of chart furniture, read from the page's CSS so the charts follow the light/dark theme.
function chartTheme() {
  return {
    text: cssVar('--text'), muted: cssVar('--muted'), faint: cssVar('--faint'), grid: cssVar('--grid'),
    border: cssVar('--border'), panel: cssVar('--panel'), accent: cssVar('--accent'), warn: cssVar('--warn'),
    bad: cssVar('--bad'),
  };
}
