// Explore: search, query and analyze from a form (or edited as JSON), with a histogram of the
// matches over time, the results as a table, a record inspector, paging by cursor and the curl
// command of every request.
import { barChart, lineChart, type Point } from "../charts";
import { ConsoleError, curlFor, request } from "../client";
import { ConditionsEditor } from "../conditions";
import { button, copyable, field, h, replace, select } from "../dom";
import { fieldList, loadFields } from "../fields";
import { RecordInspector, cellText, resultsTable, type Json } from "../records";
import { TimeRangeControl, bucketInterval, everyBucket } from "../timerange";

type Mode = "search" | "query" | "analyze";

const aggregationOps = ["count", "distinct", "sum", "avg", "min", "max", "integral"];

export class ExploreView {
  readonly element: HTMLElement;
  private readonly mode = select(["search", "query", "analyze"], "search", { "data-test": "mode" });
  private readonly text = h("input", { type: "search", placeholder: 'disk full -"test host"', "data-test": "text" });
  private readonly source = select(["history", "current"], "history", { "data-test": "source" });
  private readonly order = select(["desc", "asc"], "desc");
  private readonly limit = h("input", { type: "number", min: 1, max: 1000, value: 25, "data-test": "limit" });
  private readonly columns = h("input", { value: "timestamp,id,stream,type", "data-test": "columns" });
  private readonly range = new TimeRangeControl("24h");
  private readonly conditions = new ConditionsEditor();
  private readonly groupBy = h("input", { list: "eventsvc-fields", placeholder: "stream", "data-test": "group-by" });
  private readonly bucket = h("input", { placeholder: "5m", pattern: "\\d+(ms|s|m|h|d)", "data-test": "bucket" });
  private readonly aggregations = h("div", { class: "aggregations" });
  private readonly useJson = h("input", { type: "checkbox", "data-test": "use-json" });
  private readonly json = h("textarea", { rows: 8, spellcheck: "false", class: "mono", "data-test": "json" });
  private readonly status = h("p", { role: "status", class: "status", "data-test": "status" });
  private readonly histogram = h("div", { class: "histogram", "data-test": "histogram" });
  private readonly output = h("div", { class: "output" });
  private readonly curl = h("div", { class: "curl" });
  private readonly inspector = new RecordInspector();
  // Cursors of the pages shown so far: [undefined, c1, c2, …]; `page` indexes the one on screen.
  private cursors: (string | undefined)[] = [undefined];
  private page = 0;
  private body: Json = {};
  // Each request is numbered: an answer that arrives after a newer request was made is dropped.
  private pageRequest = 0;
  private histogramRequest = 0;

  constructor() {
    const analyzeOnly = h("div", { class: "analyze-only" },
      h("div", { class: "row" },
        field("Group by (comma-separated)", this.groupBy),
        field("Time bucket", this.bucket, "for example 5m, 1h, 1d")),
      h("fieldset", {}, h("legend", {}, "Aggregations"), this.aggregations,
        button("Add aggregation", () => this.addAggregation(), { "data-test": "add-aggregation" })));
    const form = h("form", { class: "panel", "aria-label": "Request" },
      h("div", { class: "row" },
        field("Kind", this.mode),
        field("Words", this.text, "words are ANDed; \"a phrase\", -exclude, prefix*"),
        field("Source", this.source),
        field("Order", this.order),
        field("Limit", this.limit)),
      this.range.element,
      this.conditions.element,
      analyzeOnly,
      h("div", { class: "row" }, field("Columns", this.columns, "field names, comma-separated")),
      h("details", {}, h("summary", {}, "Request as JSON"),
        h("div", { class: "row" }, h("label", {}, this.useJson, " Send this JSON instead of the form")),
        this.json),
      h("div", { class: "row" },
        h("button", { type: "submit", class: "primary", "data-test": "run" }, "Run"),
        button("Show as JSON", () => this.showJson())),
    );
    form.addEventListener("submit", (event) => {
      event.preventDefault();
      void this.run();
    });
    const applyMode = () => {
      const mode = this.mode.value as Mode;
      analyzeOnly.hidden = mode !== "analyze";
      this.conditions.element.hidden = mode === "search";
      this.source.disabled = mode === "search";
      this.order.disabled = mode === "search";
      this.text.disabled = mode === "query";
      this.limit.max = mode === "search" ? "100" : "1000";
    };
    this.mode.addEventListener("change", applyMode);
    applyMode();
    this.element = h("section", { class: "view", "aria-labelledby": "explore-title" },
      h("h2", { id: "explore-title" }, "Explore"), fieldList, form, this.status, this.histogram,
      this.output, this.inspector.element, this.curl);
    void loadFields();
  }

  private addAggregation(): void {
    const n = this.aggregations.children.length + 1;
    const row = h("div", { class: "row aggregation" },
      h("input", { value: `a${n}`, "aria-label": `Aggregation ${n} name`, "data-test": "aggregation-name" }),
      select(aggregationOps, "count", { "aria-label": `Aggregation ${n} operation`, "data-test": "aggregation-op" }),
      h("input", { list: "eventsvc-fields", placeholder: "payload.amount", "aria-label": `Aggregation ${n} field`,
        "data-test": "aggregation-field" }));
    row.append(button("Remove", () => row.remove(), { "aria-label": `Remove aggregation ${n}` }));
    this.aggregations.append(row);
  }

  private buildBody(): { path: string; body: Json } {
    const mode = this.mode.value as Mode;
    if (this.useJson.checked) {
      try {
        return { path: `/v1/${mode}`, body: JSON.parse(this.json.value) as Json };
      } catch (error) {
        throw new Error(`The request JSON does not parse: ${(error as Error).message}`);
      }
    }
    const range = this.range.value();
    const limit = Number(this.limit.value);
    if (mode === "search") {
      const body: Json = { query: this.text.value, from: range.from, to: range.to };
      if (limit) body.limit = limit;
      return { path: "/v1/search", body };
    }
    // The range bounds timestamp; a timestamp condition of the form's own is kept beside them
    // (its operators win over the range's).
    const where: Json = { ...this.conditions.where() };
    const own = where.timestamp;
    where.timestamp = own !== null && typeof own === "object" && !Array.isArray(own)
      ? { gte: range.from, lte: range.to, ...(own as Json) }
      : own === undefined ? { gte: range.from, lte: range.to } : own;
    const body: Json = { source: this.source.value, where, order: this.order.value };
    if (limit) body.limit = limit;
    if (mode === "analyze") {
      if (this.text.value.trim()) body.text = this.text.value.trim();
      const groupBy = this.groupBy.value.split(",").map((s) => s.trim()).filter(Boolean);
      if (groupBy.length) body.group_by = groupBy;
      if (this.bucket.value.trim()) body.time_bucket = { interval: this.bucket.value.trim() };
      const aggregations: Json = {};
      for (const row of Array.from(this.aggregations.children)) {
        const [name, op, fieldInput] = Array.from(row.querySelectorAll("input, select")) as HTMLInputElement[];
        const spec: Json = { op: op.value };
        if (fieldInput.value.trim()) spec.field = fieldInput.value.trim();
        if (name.value.trim()) aggregations[name.value.trim()] = spec;
      }
      if (Object.keys(aggregations).length) body.aggregations = aggregations;
    }
    return { path: `/v1/${mode}`, body };
  }

  private showJson(): void {
    try {
      this.json.value = JSON.stringify(this.buildBody().body, null, 2);
    } catch (error) {
      this.status.textContent = (error as Error).message;
    }
  }

  // Runs the form's request from its first page.
  async run(): Promise<void> {
    let built: { path: string; body: Json };
    try {
      built = this.buildBody();
    } catch (error) {
      this.status.textContent = (error as Error).message;
      return;
    }
    this.body = built.body;
    this.cursors = [undefined];
    this.page = 0;
    this.json.value = JSON.stringify(built.body, null, 2);
    await Promise.all([this.showPage(built.path), this.showHistogram(built.path, built.body)]);
  }

  private async showPage(path: string): Promise<void> {
    const requested = ++this.pageRequest;
    for (const paging of Array.from(this.output.querySelectorAll<HTMLButtonElement>(".paging button"))) {
      paging.disabled = true;
    }
    const cursor = this.cursors[this.page];
    const url = cursor ? `${path}?cursor=${encodeURIComponent(cursor)}` : path;
    replace(this.curl, h("h3", {}, "The same request with curl"), copyable(curlFor("POST", url, this.body), "curl command"));
    this.status.textContent = "Running…";
    try {
      const answer = await request<Json>("POST", url, this.body);
      if (requested !== this.pageRequest) return;
      const json = answer.json;
      const next = json.next_cursor as string | undefined;
      this.cursors[this.page + 1] = next;
      this.cursors.length = this.page + (next ? 2 : 1);
      const count = (json.results as unknown[] | undefined)?.length ?? 0;
      this.status.textContent =
        `Page ${this.page + 1}: ${count} result${count === 1 ? "" : "s"}` +
        `${json.complete === false ? " (incomplete: the scan limit was reached)" : ""}` +
        `, ${cellText(json.elapsed_ms)} ms on the server.`;
      this.render(path, json);
    } catch (error) {
      if (requested !== this.pageRequest) return;
      this.status.textContent = error instanceof ConsoleError ? error.message : String(error);
      replace(this.output);
    }
  }

  private render(path: string, json: Json): void {
    const started = performance.now();
    const columns = this.columns.value.split(",").map((s) => s.trim()).filter(Boolean);
    if (path === "/v1/search" && !columns.includes("score")) columns.push("score");
    const rows = (json.results as Json[] | undefined) ?? [];
    const paging = h("div", { class: "row paging" },
      button("Previous page", () => { this.page -= 1; void this.showPage(path); },
        { disabled: this.page === 0, "data-test": "previous" }),
      h("span", { "data-test": "page" }, `Page ${this.page + 1}`),
      button("Next page", () => { this.page += 1; void this.showPage(path); },
        { disabled: !this.cursors[this.page + 1], "data-test": "next" }));
    replace(this.output,
      aggregationsBlock(json),
      groupsBlock(json),
      h("h3", {}, "Results"),
      resultsTable(rows, columns, (record) => this.inspector.show(record)),
      paging);
    measureUntilPainted("console:results", started);
  }

  // Matches over time: the same filter through analyze with a time bucket (every match counted).
  private async showHistogram(path: string, body: Json): Promise<void> {
    const requested = ++this.histogramRequest;
    let range;
    try {
      range = this.range.value();
    } catch {
      return;
    }
    const { name: interval, ms: width } = bucketInterval(range.spanMs);
    const histogram: Json = {
      source: path === "/v1/search" ? "history" : (body.source ?? "history"),
      where: path === "/v1/search" ? { timestamp: { gte: body.from ?? range.from, lte: body.to ?? range.to } }
        : body.where ?? { timestamp: { gte: range.from, lte: range.to } },
      time_bucket: { interval }, group_limit: 1000, order: "asc", include_results: false,
    };
    const words = path === "/v1/search" ? body.query : body.text;
    if (typeof words === "string" && words.trim()) histogram.text = words;
    try {
      const answer = await request<Json>("POST", "/v1/analyze", histogram);
      if (requested !== this.histogramRequest) return;
      const started = performance.now();
      const groups = (answer.json.groups as Json[] | undefined) ?? [];
      const counts = new Map(groups.map((g) => [Date.parse(String((g.key as Json).bucket)), Number(g.count)]));
      const points = everyBucket(range, width, counts).map((b) => ({
        label: new Date(b.start).toISOString().slice(5, 16).replace("T", " "), value: b.count }));
      const total = points.reduce((sum, p) => sum + p.value, 0);
      replace(this.histogram, h("h3", {}, `Matches over time (${interval} buckets, ${total} in all)`),
        barChart(`Matches per ${interval}`, points));
      measureUntilPainted("console:histogram", started);
    } catch {
      if (requested === this.histogramRequest) replace(this.histogram);
    }
  }
}

// A User Timing measure from `started` to the end of the frame that shows what was just built
// (style, layout and paint included): a callback queued from requestAnimationFrame runs once that
// frame is painted. Read by bench/console.mjs; the browser's performance panel shows it too.
function measureUntilPainted(name: string, started: number): void {
  requestAnimationFrame(() => setTimeout(() => performance.measure(name, { start: started, end: performance.now() })));
}

function aggregationsBlock(json: Json): HTMLElement | null {
  const aggregations = json.aggregations as Record<string, Json> | undefined;
  if (!aggregations || !Object.keys(aggregations).length) return null;
  const entries = Object.entries(aggregations);
  return h("div", {},
    h("h3", {}, "Aggregations"),
    h("table", { class: "results", "data-test": "aggregations" },
      h("thead", {}, h("tr", {}, ...["name", "op", "field", "value", "count"].map((c) => h("th", { scope: "col" }, c)))),
      h("tbody", {}, ...entries.map(([name, a]) => h("tr", {},
        h("td", {}, name), h("td", {}, cellText(a.op)), h("td", {}, cellText(a.field)),
        h("td", {}, cellText(a.value)), h("td", {}, cellText(a.count)))))),
    entries.length > 1 ? barChart("Aggregations", entries.map(([name, a]) => ({ label: name, value: Number(a.value) || 0 }))) : null);
}

function groupsBlock(json: Json): HTMLElement | null {
  const groups = json.groups as Json[] | undefined;
  if (!groups || !groups.length) return null;
  const keyNames = Object.keys(groups[0].key as Json);
  const aggregationNames = Object.keys((groups[0].aggregations as Json | undefined) ?? {});
  const label = (g: Json) => keyNames.map((k) => cellText((g.key as Json)[k])).join(" · ");
  const onlyBuckets = keyNames.length === 1 && keyNames[0] === "bucket";
  const points: Point[] = groups.map((g) => ({ label: label(g), value: Number(g.count) }));
  if (onlyBuckets) points.sort((a, b) => a.label.localeCompare(b.label));
  return h("div", {},
    h("h3", {}, "Groups"),
    onlyBuckets ? lineChart("Count per bucket", points) : barChart("Count per group", points),
    h("table", { class: "results", "data-test": "groups" },
      h("thead", {}, h("tr", {}, ...[...keyNames, "count", ...aggregationNames].map((c) => h("th", { scope: "col" }, c)))),
      h("tbody", {}, ...groups.map((g) => h("tr", {},
        ...keyNames.map((k) => h("td", {}, cellText((g.key as Json)[k]))),
        h("td", {}, cellText(g.count)),
        ...aggregationNames.map((a) => h("td", {}, cellText(((g.aggregations as Json)[a] as Json).value))))))));
}
