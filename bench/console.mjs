// The console's goals, measured in headless Chromium on this machine (bench/README.md, "The
// console"): what a first load transfers (gzipped script and CSS), how long the page takes to
// draw a 1,000-row result, and the histogram of 50,000 events over 24 hours.
//
//   node bench/console.mjs build/release/bin/eventsvc [runs]
//
// It starts the server on a temporary data directory, writes 50,000 events (two shapes: orders
// and sensor readings, unique ids, nested payloads, spread over the last 24 hours), then repeats
// each measurement `runs` times (default 15) and prints min / median / max. "Drawn" is the page's
// own User Timing measure from the answer in hand to the end of the frame that shows it (building
// the elements, style, layout and paint: console:results, console:histogram); "click to drawn"
// adds the request, the server's answer and parsing it.
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { launchBrowser } from "../console/tests/browser.mjs";
import { startServer } from "../console/tests/server.mjs";

process.env.NODE_TLS_REJECT_UNAUTHORIZED = "0";

const binary = process.argv[2] ?? "build/release/bin/eventsvc";
const runs = Number(process.argv[3] ?? 15);
const events = 50_000;
const work = mkdtempSync(join(tmpdir(), "eventsvc-console-bench-"));
const dataDir = join(work, "data");

const words = ["checkout", "payment", "declined", "shipped", "warehouse", "return", "refund",
  "latency", "timeout", "retry", "battery", "firmware", "calibration", "threshold", "alarm"];
const cities = ["Lyon", "Köln", "Porto", "Zürich", "Kraków", "Malmö", "Gdańsk", "Sevilla"];

function event(i, now) {
  const at = new Date(now - Math.floor((i / events) * 86_000_000) - 1000).toISOString();
  if (i % 3 === 0) {
    return { id: `reading-${i}`, type: "sensor.reading", occurred_at: at,
      data: { device: `dev-${i % 977}`, site: cities[i % cities.length], temp: 18 + (i % 70) / 10,
        battery: { level: 100 - (i % 100), charging: i % 7 === 0 }, tags: [words[i % 15], words[(i * 7) % 15]] } };
  }
  return { id: `order-${i}-${(i * 2654435761 >>> 0).toString(16)}`, type: i % 2 ? "order.paid" : "order.created",
    occurred_at: at, data: { customer: `cust-${(i * 31) % 20011}`, amount: (i % 5000) / 10,
      city: cities[i % cities.length], items: [{ sku: `sku-${i % 3001}`, qty: 1 + (i % 4) }],
      note: `${words[i % 15]} ${words[(i * 3) % 15]} ${words[(i * 11) % 15]}` } };
}

async function load(api, key) {
  const now = Date.now();
  const receipts = [];
  for (let batch = 0; batch < events / 100; batch += 1) {
    const list = Array.from({ length: 100 }, (_, j) => event(batch * 100 + j, now));
    const response = await fetch(`${api}/v1/events`, { method: "POST", body: JSON.stringify({ stream: batch % 2 ? "orders" : "mixed", events: list }),
      headers: { Authorization: `Bearer ${key}`, "Content-Type": "application/json", "Idempotency-Key": `bench-console-${batch}` } });
    if (response.status !== 202) throw new Error(`write ${batch}: ${response.status} ${await response.text()}`);
    receipts.push((await response.json()).receipt_id);
  }
  const last = receipts[receipts.length - 1];
  for (;;) {
    const state = await (await fetch(`${api}/v1/receipts/${last}`, { headers: { Authorization: `Bearer ${key}` } })).json();
    if (state.status === "verified") return;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

const stats = (values) => {
  const sorted = [...values].sort((a, b) => a - b);
  const f = (v) => v.toFixed(1);
  return `${f(sorted[0])} / ${f(sorted[Math.floor(sorted.length / 2)])} / ${f(sorted[sorted.length - 1])}`;
};

async function main() {
  const { child, api, admin } = await startServer(binary, dataDir);
  try {
    const token = readFileSync(join(dataDir, "admin.token"), "utf8").trim();
    const created = await (await fetch(`${admin}/admin/keys`, { method: "POST", headers: { Authorization: `Bearer ${token}` },
      body: JSON.stringify({ workspace: "bench", env: "test", scopes: ["events:read", "events:write"] }) })).json();
    const key = created.secret;
    const loadStart = performance.now();
    await load(api, key);
    console.log(`loaded ${events} events, all verified, in ${((performance.now() - loadStart) / 1000).toFixed(1)} s`);

    const { browser, context } = await launchBrowser();
    const page = await context.newPage();
    let transferred = 0;
    page.on("response", async (response) => {
      if (!response.url().includes("/console/")) return;
      const sizes = await response.request().sizes().catch(() => null);
      if (sizes) transferred += sizes.responseBodySize;
    });
    await page.goto(`${api}/console/`, { waitUntil: "networkidle" });
    console.log(`first load: ${(transferred / 1024).toFixed(1)} kB transferred (page, script and CSS, gzipped)`);
    await page.fill('[data-test="secret"]', key);
    await page.click('[data-test="signin"]');
    await page.waitForSelector('[data-test="mode"]');

    // A query of 1,000 rows; its histogram is of all 50,000 events over the last 24 hours.
    await page.selectOption('[data-test="mode"]', "query");
    await page.fill('[data-test="limit"]', "1000");
    await page.fill('[data-test="columns"]', "timestamp,id,stream,type,payload.city,payload.amount");
    const results = { drawn: [], click: [] };
    const histogram = { drawn: [], click: [] };
    for (let run = 0; run < runs; run += 1) {
      await page.evaluate(() => performance.clearMeasures());
      const clicked = Date.now();
      await page.click('[data-test="run"]');
      await page.waitForFunction(() => performance.getEntriesByName("console:results").length > 0 &&
        performance.getEntriesByName("console:histogram").length > 0, null, { timeout: 60_000 });
      const measured = await page.evaluate(() => ({
        results: performance.getEntriesByName("console:results")[0],
        histogram: performance.getEntriesByName("console:histogram")[0],
        origin: performance.timeOrigin,
      }));
      results.drawn.push(measured.results.duration);
      histogram.drawn.push(measured.histogram.duration);
      results.click.push(measured.origin + measured.results.startTime + measured.results.duration - clicked);
      histogram.click.push(measured.origin + measured.histogram.startTime + measured.histogram.duration - clicked);
      const rows = await page.locator('[data-test="results"] [role="row"][data-id]').count();
      if (rows !== 1000) throw new Error(`expected 1,000 rows, saw ${rows}`);
    }
    const total = await page.evaluate(() => document.querySelector('[data-test="histogram"] h3')?.textContent);
    console.log(`histogram: ${total}`);
    console.log(`${runs} runs, ms, min / median / max`);
    console.log(`1,000-row result: drawn ${stats(results.drawn)}; click to drawn ${stats(results.click)}`);
    console.log(`50,000-event histogram: drawn ${stats(histogram.drawn)}; click to drawn ${stats(histogram.click)}`);
    await browser.close();
  } finally {
    child.kill("SIGKILL");
    rmSync(work, { recursive: true, force: true });
  }
}

await main();
