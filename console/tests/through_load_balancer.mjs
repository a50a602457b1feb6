// The console behind a cluster's load balancer (tests/cluster/cluster_script_test.sh): its files
// and every request of the page may reach any server. Signs in, queries a stream by pages of 5
// (the cursor of one server's page read by whichever server gets the next) and checks the rows
// against the API's own answers through the same balancer.
//   node through_load_balancer.mjs https://127.0.0.1:28443 KEY STREAM
import assert from "node:assert/strict";
import { idsOf, launchBrowser, run, sentBody, shownIds, signIn } from "./browser.mjs";

process.env.NODE_TLS_REJECT_UNAUTHORIZED = "0";
const [base, key, stream] = process.argv.slice(2);

async function query(body, cursor) {
  const response = await fetch(`${base}/v1/query${cursor ? `?cursor=${encodeURIComponent(cursor)}` : ""}`, {
    method: "POST", body: JSON.stringify(body),
    headers: { Authorization: `Bearer ${key}`, "Content-Type": "application/json" },
  });
  assert.equal(response.status, 200);
  return response.json();
}

const { browser, context } = await launchBrowser();
try {
  const page = await context.newPage();
  await signIn(page, base, key);
  await page.selectOption('[data-test="mode"]', "query");
  await page.fill('[data-test="limit"]', "5");
  await page.click('[data-test="add-condition"]');
  await page.fill('[data-test="condition-field"]', "stream");
  await page.fill('[data-test="condition-value"]', stream);
  await run(page);
  const body = await sentBody(page);
  let answer = await query(body);
  let pages = 0;
  for (;;) {
    assert.deepEqual(await shownIds(page), idsOf(answer));
    pages += 1;
    if (!answer.next_cursor) break;
    answer = await query(body, answer.next_cursor);
    await page.click('[data-test="next"]');
    try {
      await page.waitForSelector(`[data-test="page"]:has-text("Page ${pages + 1}")`);
    } catch (error) {
      // What the console said instead (an error answer of the server it reached, for one).
      const status = await page.textContent('[data-test="status"]');
      throw new Error(`page ${pages + 1} not shown; the console says: ${status}`, { cause: error });
    }
  }
  assert.ok(pages >= 2, "the stream spans several pages");
  console.log(`console through the load balancer: ${pages} pages shown as the API answers them`);
} finally {
  await browser.close();
}
