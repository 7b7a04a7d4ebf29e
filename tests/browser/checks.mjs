// What the browser tests read from a report page: painted pixels of each chart, the roofline's series, the rows
// the virtual table currently renders.
import assert from 'node:assert/strict';

// Per chart: pixels painted (non-transparent) and distinct colours over its canvases (ECharts draws large or
// progressive series on extra layers).
export async function chartPixels(page) {
  return page.evaluate(() => [...document.querySelectorAll('.chart')].map((el) => {
    const out = {id: el.id, painted: 0, colours: 0, area: 0};
    const colours = new Set();
    for (const canvas of el.querySelectorAll('canvas')) {
      if (!canvas.width || !canvas.height) continue;
      const data = canvas.getContext('2d').getImageData(0, 0, canvas.width, canvas.height).data;
      for (let i = 0; i < data.length; i += 4) {
        if (data[i + 3] === 0) continue;
        out.painted++;
        colours.add((data[i] >> 4) << 8 | (data[i + 1] >> 4) << 4 | (data[i + 2] >> 4));
      }
      out.area = Math.max(out.area, canvas.width * canvas.height);
    }
    return Object.assign(out, {colours: colours.size});
  }));
}

export async function assertChartsPainted(page, expectedIds) {
  const charts = await chartPixels(page);
  assert.deepEqual(charts.map((c) => c.id).sort(), [...expectedIds].sort(), 'the page draws exactly these charts');
  for (const c of charts) {
    assert.ok(c.painted > c.area * 0.01, c.id + ': only ' + c.painted + ' of ' + c.area + ' pixels painted');
    assert.ok(c.colours >= 3, c.id + ': only ' + c.colours + ' colours: axes without data?');
  }
  return charts;
}

// The roofline as ECharts holds it: ceiling line names, the layer indices of every dot, and of the dots placed at
// their coordinates (not pinned to the corner).
export async function rooflineSeries(page) {
  return page.evaluate(() => {
    const chart = echarts.getInstanceByDom(document.getElementById('roofline-chart'));
    const series = chart.getOption().series;
    return {
      ceilings: series.filter((s) => String(s.id).startsWith('ceiling:')).map((s) => s.name),
      dots: series.filter((s) => String(s.id).startsWith('layers:')).flatMap((s) => s.data.map((d) => d[2])),
      placed: series.filter((s) => String(s.id).startsWith('layers:') && s.id !== 'layers:(no FLOPs)')
        .flatMap((s) => s.data.map((d) => d[2])),
    };
  });
}

// Rendered rows of the layer table: [{seq, cells: {col: text}}].
export async function tableRows(page) {
  return page.evaluate(() => [...document.querySelectorAll('#layers .vt-row')].map((row) => ({
    seq: Number(row.dataset.seq),
    cells: Object.fromEntries([...row.children].map((c) => [c.dataset.col, c.textContent])),
  })));
}

export async function scrollTable(page, where) {
  await page.evaluate((w) => {
    const vt = document.querySelector('#layers .vt');
    vt.scrollTop = w === 'bottom' ? vt.scrollHeight : 0;
    vt.dispatchEvent(new Event('scroll'));
  }, where);
  await page.evaluate(() => new Promise((r) => requestAnimationFrame(() => requestAnimationFrame(r))));
}

export function assertNoNetworkOrErrors(seen, url) {
  assert.deepEqual(seen.consoleErrors, [], 'console errors');
  assert.deepEqual(seen.pageErrors, [], 'page errors');
  assert.deepEqual(seen.dialogs, [], 'dialogs');
  assert.deepEqual(seen.refused, [], 'requests other than the page itself');
  assert.deepEqual(seen.requests, [url], 'the page loads only itself');
}

// A chart's series as ECharts holds them: id, name, data and the y values of its mark lines.
export async function chartSeries(page, id) {
  return page.evaluate((chartId) => {
    const chart = echarts.getInstanceByDom(document.getElementById(chartId));
    return chart.getOption().series.map((s) => ({id: s.id, name: s.name, data: s.data,
      markLine: s.markLine ? s.markLine.data.map((d) => d.yAxis) : []}));
  }, id);
}
