// DOM and number formatting helpers.
// Safety rule of this front end: text that comes from the model or the report (names, ops, messages) reaches the
// DOM only as text nodes (h() children, textContent) or attribute values set with setAttribute; innerHTML is never
// used. ECharts renders tooltips as HTML, so every tooltip string is built with esc().

// h('div', {class: 'x', onclick: f}, 'text', child): an element whose string children become text nodes.
function h(tag, props, ...children) {
  const el = document.createElement(tag);
  for (const [key, value] of Object.entries(props || {})) {
    if (value === null || value === undefined || value === false) continue;
    if (key === 'class') el.className = value;
    else if (key === 'style') el.style.cssText = value;
    else if (key === 'dataset') Object.assign(el.dataset, value);
    else if (key.startsWith('on')) el.addEventListener(key.slice(2), value);
    else el.setAttribute(key, value === true ? '' : String(value));
  }
  for (const child of children.flat(Infinity)) {
    if (child === null || child === undefined || child === false) continue;
    el.append(child instanceof Node ? child : String(child));  // append(string) inserts a text node
  }
  return el;
}

function clear(el) {
  while (el.firstChild) el.removeChild(el.firstChild);
  return el;
}

// For ECharts tooltip HTML only.
function esc(value) {
  return String(value).replace(/[&<>"']/g, (c) => ({'&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;'}[c]));
}

function tipRows(title, rows) {
  let html = '<div class="tip"><b>' + esc(title) + '</b>';
  for (const [k, v] of rows) html += '<br><span class="k">' + esc(k) + '</span> ' + esc(v);
  return html + '</div>';
}

// 1234567 -> "1.23M" (SI, 3 significant digits), the way the terminal tables print counts.
function si(value, unit = '') {
  const v = Number(value) || 0;
  const a = Math.abs(v);
  const steps = [[1e18, 'E'], [1e15, 'P'], [1e12, 'T'], [1e9, 'G'], [1e6, 'M'], [1e3, 'K']];
  for (const [scale, prefix] of steps) if (a >= scale) return trim3(v / scale) + prefix + unit;
  return (Number.isInteger(v) ? String(v) : trim3(v)) + unit;
}
function trim3(v) {
  const a = Math.abs(v);
  return v.toFixed(a >= 100 ? 1 : a >= 10 ? 2 : a >= 1 ? 2 : 3);
}
function bytes(v) { return si(v, 'B'); }
function ms(v) { return (Number(v) || 0).toFixed(3); }
function pct(ratio, digits = 1) { return ((Number(ratio) || 0) * 100).toFixed(digits) + '%'; }
function fixed(v, digits = 1) { return (Number(v) || 0).toFixed(digits); }
function grouped(v) { return (Number(v) || 0).toLocaleString('en-US'); }

function shapeText(shape) {
  if (!shape || shape.length === 0) return 'scalar';
  return shape.map((d) => (d < 0 ? '?' : String(d))).join('x');
}
function shapesText(shapes) { return (shapes || []).map(shapeText).join(', '); }

function cssVar(name) { return getComputedStyle(document.documentElement).getPropertyValue(name).trim(); }

function section(id, title, caption) {
  const card = h('section', {class: 'card', id},
    h('h2', null, title), caption ? h('p', {class: 'caption'}, caption) : null);
  return card;
}

function emptyNote(text) { return h('div', {class: 'empty'}, text); }
