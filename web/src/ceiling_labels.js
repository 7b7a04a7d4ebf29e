// Ceiling labels that never overlap: each label gets the first of its candidate places (in screen pixels) whose
// box overlaps no label placed before it and stays inside the plot; compute ceilings first (top down), then the
// memory ones. A compute ceiling's candidates: above its line at the right end, below it, then further left
// along the line; a memory ceiling's: along its slanted line, above it. Pure (no DOM): the page and the tests
// give it a text-width function.
const LABEL_HEIGHT = 13, LABEL_GAP = 3;

// Corners of a w x h box whose bottom-left corner sits `lift` px above point (x, y), rotated by `deg` (counter-
// clockwise, screen y down) about that point; `alignRight` puts the box's bottom-right corner there instead.
function labelBox(x, y, w, h, deg, lift, alignRight) {
  const a = -deg * Math.PI / 180, c = Math.cos(a), s = Math.sin(a);
  const x0 = alignRight ? -w : 0;
  const local = [[x0, -lift], [x0 + w, -lift], [x0 + w, -lift - h], [x0, -lift - h]];
  return local.map(([u, v]) => [x + u * c - v * s, y + u * s + v * c]);
}

// Separating-axis test for two convex quadrilaterals (arrays of 4 [x, y]); touching edges do not overlap.
function boxesOverlap(p, q) {
  for (const poly of [p, q]) {
    for (let i = 0; i < 4; i++) {
      const [x1, y1] = poly[i], [x2, y2] = poly[(i + 1) % 4];
      const nx = y2 - y1, ny = x1 - x2;
      const proj = (pts) => pts.map(([x, y]) => x * nx + y * ny);
      const a = proj(p), b = proj(q);
      if (Math.max(...a) <= Math.min(...b) + 1e-6 || Math.max(...b) <= Math.min(...a) + 1e-6) return false;
    }
  }
  return true;
}

function insideRect(box, rect) {
  return box.every(([x, y]) => x >= rect.left - 0.5 && x <= rect.right + 0.5 && y >= rect.top - 0.5 && y <= rect.bottom + 0.5);
}

// labels: [{kind: 'compute', y, x0, x1, text} | {kind: 'memory', xs, ys, xe, ye, angle, text}] in pixels.
// Returns [{x, y, below, alignRight, angle, box}] in the same order (x, y: the anchor on the line).
function placeCeilingLabels(labels, plot, textWidth) {
  const placed = [];
  const result = new Array(labels.length);
  const order = labels.map((l, i) => i).sort((i, j) => {
    const a = labels[i], b = labels[j];
    if (a.kind !== b.kind) return a.kind === 'compute' ? -1 : 1;
    return a.kind === 'compute' ? a.y - b.y : j - i;
  });
  for (const i of order) {
    const l = labels[i];
    const w = textWidth(l.text);
    const candidates = [];
    if (l.kind === 'compute') {
      for (let k = 0; k < 6; k++) {
        const x = l.x1 - k * (w + 12);
        if (k > 0 && x - w < l.x0) break;
        candidates.push({x, y: l.y, below: false, alignRight: true, angle: 0});
        candidates.push({x, y: l.y, below: true, alignRight: true, angle: 0});
      }
    } else {
      for (const f of [0.1, 0.3, 0.5, 0.2, 0.4, 0.6, 0.05, 0.15, 0.25, 0.35, 0.45, 0.55, 0.7]) {
        candidates.push({x: l.xs + (l.xe - l.xs) * f, y: l.ys + (l.ye - l.ys) * f, below: false, alignRight: false, angle: l.angle});
      }
    }
    let best = null, bestCost = Infinity;
    for (const c of candidates) {
      const lift = c.below ? -(LABEL_HEIGHT + LABEL_GAP) : LABEL_GAP;
      c.box = labelBox(c.x, c.y, w, LABEL_HEIGHT, c.angle, lift, c.alignRight);
      const hits = placed.filter((b) => boxesOverlap(b, c.box)).length;
      const cost = hits * 10 + (insideRect(c.box, plot) ? 0 : 5);
      if (cost < bestCost) { best = c; bestCost = cost; }
      if (cost === 0) break;
    }
    placed.push(best.box);
    result[i] = best;
  }
  return result;
}

if (typeof module !== 'undefined') module.exports = {placeCeilingLabels, boxesOverlap, labelBox};
