// What the console's browser tests share: Debian's Chromium through playwright-core, signing in,
// and reading what a view shows.
import { chromium } from "playwright-core";

export async function launchBrowser() {
  const browser = await chromium.launch({
    executablePath: process.env.EVENTSVC_CHROMIUM ?? "/usr/bin/chromium",
    args: ["--no-sandbox"],
  });
  // The servers under test have self-signed certificates.
  const context = await browser.newContext({ ignoreHTTPSErrors: true, viewport: { width: 1280, height: 900 } });
  return { browser, context };
}

export async function signIn(page, base, secret) {
  await page.goto(`${base}/console/`);
  await page.fill('[data-test="secret"]', secret);
  await page.click('[data-test="signin"]');
}

// The ids of the result rows on screen, in order.
export async function shownIds(page) {
  await page.waitForSelector('[data-test="results"] [role="row"][data-id], [data-test="no-results"]');
  return page.$$eval('[data-test="results"] [role="row"][data-id]', (rows) => rows.map((row) => row.dataset.id));
}

// The body the console sent, as its JSON box shows it after a run.
export async function sentBody(page) {
  return JSON.parse(await page.inputValue('[data-test="json"]'));
}

export async function run(page) {
  await page.click('[data-test="run"]');
  await page.waitForSelector('[data-test="status"]:has-text("Page")');
}

export const idsOf = (answer) => answer.results.map((r) => (r.record ?? r).id);
