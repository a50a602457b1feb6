// The console end to end: the real server (a temporary data directory, ephemeral ports, HTTPS),
// driven in headless Chromium (Debian's, through playwright-core), each view's rows checked against
// the API's own answer to the same request. Run by ctest (label `browser`):
//   EVENTSVC_BINARY=build/release/bin/eventsvc EVENTSVC_CONFIG=config/eventsvc.yaml \
//   EVENTSVC_SCREENSHOTS=build/release/console-screenshots node --test console/tests/
import { after, before, test } from "node:test";
import assert from "node:assert/strict";
import { mkdirSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { createRequire } from "node:module";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { idsOf, launchBrowser, run, sentBody, shownIds, signIn } from "./browser.mjs";
import { startServer } from "./server.mjs";

// The server's certificate is self-signed: this process talks to it directly too.
process.env.NODE_TLS_REJECT_UNAUTHORIZED = "0";
const require = createRequire(import.meta.url);
const axeSource = readFileSync(require.resolve("axe-core/axe.min.js"), "utf8");

const binary = process.env.EVENTSVC_BINARY;
const baseConfig = process.env.EVENTSVC_CONFIG;
const screenshots = process.env.EVENTSVC_SCREENSHOTS;
assert.ok(binary && baseConfig, "EVENTSVC_BINARY and EVENTSVC_CONFIG name the server and its config");

const work = mkdtempSync(join(tmpdir(), "eventsvc-console-"));
const dataDir = join(work, "data");
let server;
let api;
let admin;
let adminToken;
let key;
let browser;
let context;
let page;
const cspViolations = [];

// --- the server and the API, as any client meets them ------------------------------------------

async function call(method, url, body, bearer, headers = {}) {
  const response = await fetch(url, {
    method,
    headers: { Authorization: `Bearer ${bearer}`, ...(body ? { "Content-Type": "application/json" } : {}), ...headers },
    body: body ? JSON.stringify(body) : undefined,
  });
  const text = await response.text();
  return { status: response.status, json: text ? JSON.parse(text) : null, headers: response.headers };
}

const v1 = (method, path, body, headers) => call(method, api + path, body, key, headers);

async function write(stream, events) {
  const answer = await v1("POST", "/v1/events", { stream, events }, { "Idempotency-Key": `test-${stream}-${events[0].id}` });
  assert.equal(answer.status, 202, JSON.stringify(answer.json));
  return answer.json.receipt_id;
}

async function awaitVerified(receiptId) {
  for (let i = 0; i < 600; i += 1) {
    const answer = await v1("GET", `/v1/receipts/${receiptId}`);
    if (answer.json.status === "verified") return answer.json;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  throw new Error(`receipt ${receiptId} was not verified`);
}

const at = (msAgo) => new Date(Date.now() - msAgo).toISOString();
const minutes = 60_000;
let shopReceipt;

async function seed() {
  const cities = ["Lyon", "Köln", "Porto"];
  const shop = Array.from({ length: 12 }, (_, i) => ({
    id: `order-${String(i).padStart(2, "0")}`, type: i % 2 ? "order.paid" : "order.created",
    occurred_at: at((60 - i) * minutes),
    data: { amount: 10 + i, city: cities[i % 3], note: i % 2 ? "paid by card" : "created online" },
  }));
  shopReceipt = await write("shop", shop);
  // The boiler's two door sensors disagree 2 s apart (a contradiction) and it has gone quiet for
  // 20 minutes (stale: missing evidence); the office door closed, then opened (a transition).
  const rooms = [
    { id: "sensor-a", type: "reading", occurred_at: at(20 * minutes), data: { room: "boiler", door: "open" } },
    { id: "sensor-b", type: "reading", occurred_at: at(20 * minutes - 2000), data: { room: "boiler", door: "closed" } },
    { id: "sensor-c", type: "reading", occurred_at: at(10 * minutes), data: { room: "office", door: "closed" } },
    { id: "sensor-d", type: "reading", occurred_at: at(5 * minutes), data: { room: "office", door: "open" } },
  ];
  const roomsReceipt = await write("rooms", rooms);
  await awaitVerified(shopReceipt);
  await awaitVerified(roomsReceipt);
}

// --- the browser ---------------------------------------------------------------------------------

async function newPage() {
  const p = await context.newPage();
  p.on("console", (message) => {
    if (/Content Security Policy|Refused to/.test(message.text())) cspViolations.push(message.text());
  });
  return p;
}

async function shoot(p, name) {
  if (!screenshots) return;
  mkdirSync(screenshots, { recursive: true });
  await p.screenshot({ path: join(screenshots, `${name}.png`), fullPage: true });
}

// No serious or critical accessibility violation on the page as it is now.
async function assertAccessible(p, name) {
  await p.evaluate(axeSource);
  const violations = await p.evaluate(async () => {
    const result = await window.axe.run(document, { resultTypes: ["violations"] });
    return result.violations.filter((v) => v.impact === "serious" || v.impact === "critical")
      .map((v) => `${v.id}: ${v.help} (${v.nodes.map((n) => n.target.join(" ")).join(", ")})`);
  });
  assert.deepEqual(violations, [], `${name}: accessibility violations`);
}

before(async () => {
  // The default config, as `make run` serves it.
  ({ child: server, api, admin } = await startServer(binary, dataDir, ["--config", baseConfig]));
  adminToken = readFileSync(join(dataDir, "admin.token"), "utf8").trim();
  const created = await call("POST", `${admin}/admin/keys`, { workspace: "console", env: "test",
    scopes: ["events:read", "events:write"], label: "console test" }, adminToken);
  assert.equal(created.status, 201);
  key = created.json.secret;
  await seed();
  ({ browser, context } = await launchBrowser());
  page = await newPage();
});

after(async () => {
  await browser?.close();
  server?.kill("SIGKILL");
  rmSync(work, { recursive: true, force: true });
});

// --- the tests, in order: each builds on the page the one before left --------------------------

test("the console's files come with a strict Content-Security-Policy", async () => {
  const response = await fetch(`${api}/console/`);
  assert.equal(response.status, 200);
  const policy = response.headers.get("content-security-policy");
  assert.match(policy, /default-src 'none'/);
  assert.match(policy, /script-src 'self';/);
  assert.doesNotMatch(policy, /unsafe/);
  assert.equal(response.headers.get("x-frame-options"), "DENY");
  const html = await response.text();
  assert.match(html, /content="api"/);
  const adminPage = await (await fetch(`${admin}/console/`)).text();
  assert.match(adminPage, /content="admin"/);
  assert.equal((await fetch(`${api}/console/no-such-file.js`)).status, 404);
});

test("a wrong key gets a clear message", async () => {
  await signIn(page, api, "key_test_thisIsNotAKeyOfThisServer000000");
  await page.waitForSelector('[data-test="signin-message"]:has-text("refused")');
  assert.match(await page.textContent('[data-test="signin-message"]'), /wrong, revoked or expired/);
  await assertAccessible(page, "sign-in");
  await shoot(page, "sign-in");
});

test("search: the rows shown are the API's answer to the same request", async () => {
  await signIn(page, api, key);
  await page.waitForSelector('nav a[data-view="explore"]');
  await page.fill('[data-test="text"]', "paid");
  await run(page);
  const body = await sentBody(page);
  assert.equal(body.query, "paid");
  const answer = await v1("POST", "/v1/search", body);
  assert.equal(answer.json.results.length, 6);
  assert.deepEqual(await shownIds(page), idsOf(answer.json));
  await page.waitForSelector('[data-test="histogram"] svg');
  await assertAccessible(page, "search");
  await shoot(page, "search");

  // Dark, as chosen by the reader: contrast checked again.
  await page.click('[data-test="theme"]');
  assert.equal(await page.evaluate(() => document.documentElement.dataset.theme), "dark");
  await assertAccessible(page, "search, dark");
  await shoot(page, "search-dark");
  await page.click('[data-test="theme"]');
  assert.equal(await page.evaluate(() => document.documentElement.dataset.theme), "light");
});

test("query: conditions, a record opened, paging forward and back", async () => {
  await page.selectOption('[data-test="mode"]', "query");
  await page.fill('[data-test="limit"]', "5");
  await page.click('[data-test="add-condition"]');
  await page.fill('[data-test="condition-field"]', "stream");
  await page.fill('[data-test="condition-value"]', "shop");
  await run(page);
  const body = await sentBody(page);
  assert.deepEqual(body.where.stream, { eq: "shop" });
  const first = await v1("POST", "/v1/query", body);
  assert.deepEqual(await shownIds(page), idsOf(first.json));
  assert.equal(idsOf(first.json).length, 5);

  await page.click('[data-test="results"] [data-index="0"] button');
  assert.equal(await page.textContent('[data-test="digest"]'), first.json.results[0].proof_digest);
  assert.equal(await page.textContent('[data-test="verification"]'), "verified");
  await shoot(page, "record");
  await page.click('[data-test="close-record"]');

  await page.click('[data-test="next"]');
  await page.waitForSelector('[data-test="page"]:has-text("Page 2")');
  const second = await v1("POST", `/v1/query?cursor=${encodeURIComponent(first.json.next_cursor)}`, body);
  assert.deepEqual(await shownIds(page), idsOf(second.json));
  await page.click('[data-test="previous"]');
  await page.waitForSelector('[data-test="page"]:has-text("Page 1")');
  assert.deepEqual(await shownIds(page), idsOf(first.json));
});

test("analyze: groups and aggregations as the API computes them", async () => {
  await page.selectOption('[data-test="mode"]', "analyze");
  await page.fill('[data-test="text"]', "");
  await page.fill('[data-test="limit"]', "20");
  await page.fill('[data-test="group-by"]', "payload.city");
  await page.click('[data-test="add-aggregation"]');
  await page.selectOption('[data-test="aggregation-op"]', "sum");
  await page.fill('[data-test="aggregation-field"]', "payload.amount");
  await run(page);
  const body = await sentBody(page);
  const answer = await v1("POST", "/v1/analyze", body);
  assert.deepEqual(await shownIds(page), idsOf(answer.json));
  const groups = await page.$$eval('[data-test="groups"] tbody tr', (rows) =>
    rows.map((row) => Array.from(row.children, (cell) => cell.textContent)));
  assert.deepEqual(groups, answer.json.groups.map((g) =>
    [g.key["payload.city"], String(g.count), String(g.aggregations.a1.value)]));
  assert.deepEqual(groups.map((g) => g[0]).sort(), ["Köln", "Lyon", "Porto"]);
  await assertAccessible(page, "analyze");
  await shoot(page, "analyze");
});

test("a Context Pack shows its transition, contradiction and missing evidence, and proof opens records", async () => {
  await page.click('nav a[data-view="context"]');
  await page.fill('[data-test="context-subjects"]', "payload.room");
  await page.click('[data-test="add-condition"]');
  await page.fill('[data-test="condition-field"]', "stream");
  await page.fill('[data-test="condition-value"]', "rooms");
  await page.click('[data-test="context-run"]');
  await page.waitForSelector('[data-test="readiness"]');
  const answer = await v1("POST", "/v1/analyze", { source: "history",
    where: { stream: { eq: "rooms" }, timestamp: { gte: "now-24h", lte: "now" } },
    context: { mode: "decision", token_budget: 4000 }, include_results: false, group_by: ["payload.room"] });
  const pack = answer.json.context;
  assert.equal(await page.textContent('[data-test="readiness"]'), pack.decision_readiness.status);
  assert.equal(pack.decision_readiness.status, "conflicting");
  assert.equal(await page.locator('[data-test="facts"] article').count(), pack.facts.length);
  assert.equal(pack.timeline.length, 1);
  assert.match(await page.textContent('[data-test="timeline"]'), /office · payload\.door: closed → open/);
  assert.equal(pack.contradictions.length, 1);
  const contradiction = page.locator('[data-test="contradiction"]');
  assert.match(await contradiction.textContent(), /boiler · payload\.door/);
  assert.match(await page.textContent('[data-test="missing"]'), /boiler: stale/);
  await shoot(page, "context-pack");

  await contradiction.locator('[data-test="proof"]', { hasText: "sensor-a" }).click();
  await page.waitForSelector('.inspector:not([hidden]) h3:has-text("sensor-a")');
  assert.match(await page.textContent(".inspector pre"), /"door": "open"/);
  await assertAccessible(page, "context");
  await shoot(page, "context-proof");

  // A smaller budget keeps fewer facts, and readiness says so.
  await page.$eval('[data-test="budget"]', (slider) => {
    slider.value = "256";
    slider.dispatchEvent(new Event("input"));
  });
  await page.waitForSelector('[data-test="context-status"]:has-text("budget of 256")');
});

test("the live tail shows an event written while it runs", async () => {
  await page.click('nav a[data-view="tail"]');
  await page.fill('[data-test="tail-stream"]', "live");
  await page.click('[data-test="tail-start"]');
  await page.waitForSelector('[data-test="tail-status"]:has-text("Live")');
  await write("live", [{ id: "tail-1", type: "ping", occurred_at: at(0), data: { n: 1 } }]);
  await page.waitForSelector('[data-test="tail-events"] li[data-id="tail-1"]', { timeout: 20_000 });
  await page.click('[data-test="tail-pause"]');
  await write("live", [{ id: "tail-2", type: "ping", occurred_at: at(0), data: { n: 2 } }]);
  await page.waitForSelector('[data-test="tail-status"]:has-text("1 new event waiting")', { timeout: 20_000 });
  assert.equal(await page.locator('li[data-id="tail-2"]').count(), 0);
  await page.click('[data-test="tail-pause"]');
  await page.waitForSelector('li[data-id="tail-2"]');
  await assertAccessible(page, "tail");
  await shoot(page, "tail");
  await page.click('[data-test="tail-start"]');
  await page.waitForSelector('[data-test="tail-status"]:has-text("Stopped")');

  // Started again with the same filter, it resumes after the last event it had: one written while
  // it was stopped comes, none comes twice.
  await write("live", [{ id: "tail-3", type: "ping", occurred_at: at(0), data: { n: 3 } }]);
  await page.click('[data-test="tail-start"]');
  await page.waitForSelector('[data-test="tail-events"] li[data-id="tail-3"]', { timeout: 20_000 });
  assert.match(await page.textContent(".curl pre"), /since=/);
  // The list keeps what the first tail showed: each event is in it once.
  assert.equal(await page.locator('[data-test="tail-events"] li[data-id="tail-2"]').count(), 1);
  assert.equal(await page.locator('[data-test="tail-events"] li[data-id="tail-1"]').count(), 1);
  await page.click('[data-test="tail-start"]');
  await page.waitForSelector('[data-test="tail-status"]:has-text("Stopped")');
});

test("at 200% zoom (half the width) nothing needs scrolling sideways", async () => {
  await page.setViewportSize({ width: 640, height: 900 });
  for (const view of ["explore", "context", "tail", "writes"]) {
    await page.click(`nav a[data-view="${view}"]`);
    const overflow = await page.evaluate(() => document.documentElement.scrollWidth - document.documentElement.clientWidth);
    assert.equal(overflow, 0, `${view} is wider than the window`);
  }
  await page.setViewportSize({ width: 1280, height: 900 });
});

test("writes: a receipt's state and digest, and a small write", async () => {
  await page.click('nav a[data-view="writes"]');
  await page.fill('[data-test="receipt-id"]', shopReceipt);
  await page.click('[data-test="receipt-look"]');
  await page.waitForSelector('[data-test="receipt-status"]');
  const receipt = (await v1("GET", `/v1/receipts/${shopReceipt}`)).json;
  assert.equal(await page.textContent('[data-test="receipt-status"]'), "verified");
  assert.equal(await page.textContent('[data-test="receipt-digest"]'),
    `${receipt.integrity.algorithm} ${receipt.integrity.event_set_sha256}`);

  const eventId = await page.inputValue('[data-test="write-id"]');
  await page.click('[data-test="write-send"]');
  const written = await page.waitForSelector('[data-test="written-receipt"]');
  const receiptId = await written.textContent();
  assert.match(receiptId, /^req_[a-f0-9]{16}$/);
  const state = await awaitVerified(receiptId);
  assert.equal(state.accepted, 1);
  const stored = await v1("POST", "/v1/query", { where: { id: eventId } });
  assert.deepEqual(stored.json.results[0].payload, { text: "hello from the console" });
  await assertAccessible(page, "writes");
  await shoot(page, "writes");
});

test("keyboard only: sign in, search, open a record and close it", async () => {
  const p = await newPage();
  await p.goto(`${api}/console/`);
  await p.waitForSelector('[data-test="secret"]:focus');
  await p.keyboard.type(key);
  await p.keyboard.press("Enter");
  await p.waitForSelector('[data-test="mode"]');
  for (let i = 0; i < 40 && !(await p.$('[data-test="text"]:focus')); i += 1) await p.keyboard.press("Tab");
  await p.keyboard.type("created");
  await p.keyboard.press("Enter");
  await p.waitForSelector('[data-test="results"] [role="row"][data-id]');
  for (let i = 0; i < 80 && !(await p.$('[data-test="results"] button:focus')); i += 1) await p.keyboard.press("Tab");
  await p.keyboard.press("Enter");
  await p.waitForSelector('[data-test="close-record"]:focus');
  await p.keyboard.press("Enter");
  await p.waitForSelector(".inspector[hidden]", { state: "attached" });
  await p.close();
});

test("admin console: create a key, use it, revoke it, and the API refuses it", async () => {
  const p = await newPage();
  await signIn(p, admin, "not-the-token");
  await p.waitForSelector('[data-test="signin-message"]:has-text("not the admin token")');
  await p.fill('[data-test="secret"]', adminToken);
  await p.click('[data-test="signin"]');
  await p.waitForSelector('[data-test="keys"] table');
  await p.fill('[data-test="key-workspace"]', "made-in-console");
  await p.fill('[data-test="key-label"]', "from the browser");
  await p.click('[data-test="key-create"]');
  const secret = (await (await p.waitForSelector('[data-test="secret"] pre')).textContent()).trim();
  assert.match(secret, /^key_test_/);
  assert.equal((await call("GET", `${api}/v1/fields`, undefined, secret)).status, 200);
  const listed = (await call("GET", `${admin}/admin/keys`, undefined, adminToken)).json.keys;
  const made = listed.find((k) => k.workspace === "made-in-console");
  assert.ok(made.last_used_at, "the key was used once");
  await p.click('nav a[data-view="operations"]');
  await p.click('nav a[data-view="keys"]');
  assert.equal(await p.textContent(`tr[data-id="${made.id}"] [data-test="last-used"]`), made.last_used_at);
  await assertAccessible(p, "keys");
  await shoot(p, "keys");
  p.once("dialog", (dialog) => dialog.accept());
  await p.click(`tr[data-id="${made.id}"] [data-test="revoke"]`);
  await p.waitForSelector('[data-test="keys-status"]:has-text("revoked")');
  assert.equal((await call("GET", `${api}/v1/fields`, undefined, secret)).status, 401);

  await p.click('nav a[data-view="operations"]');
  await p.waitForSelector('[data-test="readiness"] .badge');
  assert.equal(await p.textContent('[data-test="readiness"] .badge'), "ready");
  await p.waitForSelector(".cards svg");
  await assertAccessible(p, "operations");
  await shoot(p, "operations");
  await p.close();
});

test("a session whose key was revoked meanwhile is told so and signed out", async () => {
  const created = await call("POST", `${admin}/admin/keys`, { workspace: "console", env: "test",
    scopes: ["events:read"] }, adminToken);
  const p = await newPage();
  await signIn(p, api, created.json.secret);
  await p.waitForSelector('[data-test="run"]');
  await call("DELETE", `${admin}/admin/keys/${created.json.key.id}`, undefined, adminToken);
  await p.click('[data-test="run"]');
  await p.waitForSelector('[data-test="signin-message"]:has-text("refused the credential")');
  assert.equal(await p.evaluate(() => sessionStorage.length), 0);
  await p.close();
});

test("no page broke its Content-Security-Policy", () => {
  assert.deepEqual(cspViolations, []);
});

test("a server that went away gives a clear message", async () => {
  await page.click('nav a[data-view="explore"]');
  server.kill("SIGKILL");
  await new Promise((resolve) => server.once("exit", resolve));
  await page.click('[data-test="run"]');
  await page.waitForSelector('[data-test="status"]:has-text("did not answer")');
});
