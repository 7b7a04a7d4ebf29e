// `make screenshots`: headless Chromium photographs an HTML report for the README (network off, light theme).
//   node scripts/screenshot-report.mjs REPORT.html OUT.png [HEIGHT]
// Captures the top of the page at 1280 px wide: header, summary, roofline and the start of the layer table.
import {launch, openReport} from '../tests/browser/browser.mjs';

const [html, png, height = '1560'] = process.argv.slice(2);
if (!html || !png) {
  console.error('usage: screenshot-report.mjs REPORT.html OUT.png [HEIGHT]');
  process.exit(2);
}
const browser = await launch();
try {
  const {page, seen} = await openReport(browser, html);
  if (seen.consoleErrors.length || seen.pageErrors.length || seen.refused.length)
    throw new Error('the page misbehaved: ' + JSON.stringify(seen));
  await page.setViewportSize({width: 1280, height: Number(height)});
  await page.evaluate(() => new Promise((r) => requestAnimationFrame(() => requestAnimationFrame(r))));
  await page.screenshot({path: png, clip: {x: 0, y: 0, width: 1280, height: Number(height)}});
  console.log('wrote ' + png);
} finally {
  await browser.close();
}
