// Context Packs read as a person reads them: readiness as a badge with its reasons, facts as
// cards, the timeline, contradictions side by side, missing evidence, and proof ids that open the
// records they cite; a budget slider shows what a smaller pack keeps.
import { ConsoleError, curlFor, request } from "../client";
import { ConditionsEditor } from "../conditions";
import { button, copyable, field, h, replace } from "../dom";
import { fieldList, loadFields } from "../fields";
import { RecordInspector, cellText, type Json } from "../records";
import { TimeRangeControl } from "../timerange";

const plural = (n: number, noun: string) => `${n} ${noun}${n === 1 ? "" : "s"}`;

export class ContextView {
  readonly element: HTMLElement;
  private readonly range = new TimeRangeControl("24h");
  private readonly conditions = new ConditionsEditor();
  private readonly text = h("input", { type: "search", placeholder: "words the records hold", "data-test": "context-text" });
  private readonly subjects = h("input", { list: "eventsvc-fields", placeholder: "payload.room", "data-test": "context-subjects" });
  private readonly budget = h("input", { type: "range", min: 256, max: 16000, step: 16, value: 4000, "data-test": "budget" });
  private readonly budgetText = h("output", { "data-test": "budget-value" }, "4000");
  private readonly status = h("p", { role: "status", class: "status", "data-test": "context-status" });
  private readonly pack = h("div", { class: "pack", "data-test": "pack" });
  private readonly curl = h("div", { class: "curl" });
  private readonly inspector = new RecordInspector();
  private lastRange = { from: "now-24h", to: "now" };
  private fullFacts: number | null = null;
  private debounce = 0;
  private requests = 0;  // an answer to an older request than the newest is dropped

  constructor() {
    this.budget.id = "context-budget";
    const form = h("form", { class: "panel", "aria-label": "Context Pack request" },
      this.range.element, this.conditions.element,
      h("div", { class: "row" }, field("Subjects (group by)", this.subjects, "the field that names what the facts are about"),
        field("Words", this.text),
        h("div", { class: "field" }, h("label", { for: "context-budget" }, "Token budget"), this.budget, this.budgetText)),
      h("button", { type: "submit", class: "primary", "data-test": "context-run" }, "Build the pack"));
    form.addEventListener("submit", (event) => {
      event.preventDefault();
      this.fullFacts = null;
      void this.run();
    });
    this.budget.addEventListener("input", () => {
      this.budgetText.textContent = this.budget.value;
      window.clearTimeout(this.debounce);
      this.debounce = window.setTimeout(() => void this.run(), 250);
    });
    this.element = h("section", { class: "view", "aria-labelledby": "context-title" },
      h("h2", { id: "context-title" }, "Context Pack"), fieldList, form, this.status,
      this.inspector.element, this.pack, this.curl);
    void loadFields();
  }

  private body(): Json {
    const range = this.range.value();
    this.lastRange = range;
    const body: Json = {
      source: "history",
      where: { ...this.conditions.where(), timestamp: { gte: range.from, lte: range.to } },
      context: { mode: "decision", token_budget: Number(this.budget.value) },
      include_results: false,
    };
    if (this.text.value.trim()) body.text = this.text.value.trim();
    const subjects = this.subjects.value.split(",").map((s) => s.trim()).filter(Boolean);
    if (subjects.length) body.group_by = subjects;
    return body;
  }

  async run(): Promise<void> {
    let body: Json;
    try {
      body = this.body();
    } catch (error) {
      this.status.textContent = (error as Error).message;
      return;
    }
    replace(this.curl, h("h3", {}, "The same request with curl"), copyable(curlFor("POST", "/v1/analyze", body), "curl command"));
    this.status.textContent = "Building…";
    const requested = ++this.requests;
    const budget = (body.context as Json).token_budget;
    try {
      const answer = await request<Json>("POST", "/v1/analyze", body);
      if (requested !== this.requests) return;
      const pack = answer.json.context as Json;
      const facts = (pack.facts as Json[]).length;
      if (this.fullFacts === null) this.fullFacts = facts;
      this.status.textContent = `${answer.json.matched ?? 0} matched records, ${facts} facts kept at a budget of ${cellText(budget)} tokens` +
        (this.fullFacts !== null && facts < this.fullFacts ? ` (${this.fullFacts} at the first budget)` : "") + ".";
      this.render(pack);
    } catch (error) {
      if (requested !== this.requests) return;
      this.status.textContent = error instanceof ConsoleError ? error.message : String(error);
      replace(this.pack);
    }
  }

  private proofLink(id: string): HTMLElement {
    return button(id, () => void this.openRecord(id), { class: "proof", "data-test": "proof", "aria-label": `Open cited record ${id}` });
  }

  // The cited record: its newest version in the pack's time range.
  private async openRecord(id: string): Promise<void> {
    try {
      const answer = await request<Json>("POST", "/v1/query", { source: "history", limit: 1,
        where: { id, timestamp: { gte: this.lastRange.from, lte: this.lastRange.to } } });
      const record = (answer.json.results as Json[])[0];
      if (record) this.inspector.show(record);
      else this.status.textContent = `Record ${id} is no longer in the range (erased or past retention).`;
    } catch (error) {
      this.status.textContent = (error as Error).message;
    }
  }

  private render(pack: Json): void {
    const readiness = pack.decision_readiness as { status: string; reasons: string[]; budget_needed?: number };
    const facts = (pack.facts as Json[]) ?? [];
    const timeline = (pack.timeline as Json[]) ?? [];
    const contradictions = (pack.contradictions as Json[]) ?? [];
    const missing = (pack.missing_evidence as Json[]) ?? [];
    const exclusions = (pack.exclusions as Json) ?? {};
    const compaction = (pack.compaction as Json) ?? {};
    const proof = (pack.proof as { complete: boolean; event_ids: string[] }) ?? { complete: false, event_ids: [] };
    replace(this.pack,
      h("div", { class: "row readiness" },
        h("span", { class: `badge ${readiness.status}`, "data-test": "readiness" }, readiness.status),
        h("ul", { class: "reasons", "data-test": "reasons" }, ...readiness.reasons.map((r) => h("li", {}, r))),
        readiness.budget_needed ? h("span", {}, `a budget of ${readiness.budget_needed} keeps every fact`) : null,
        h("span", {}, `confidence ${cellText(pack.confidence)}`),
        h("span", { class: "mono" }, cellText(pack.context_id))),
      h("h3", {}, `Facts (${facts.length})`),
      h("div", { class: "cards", "data-test": "facts" }, ...facts.map((f) => h("article", { class: "card" },
        h("h4", {}, `${cellText(f.subject)} · ${cellText(f.attribute)}`),
        h("p", { class: "value" }, cellText(f.value), f.unit ? ` ${cellText(f.unit)}` : ""),
        h("p", {}, `since ${cellText(f.value_since)}; last seen ${cellText(f.last_seen)}`),
        f.range ? h("p", {}, `range ${cellText((f.range as Json).min)} – ${cellText((f.range as Json).max)} over ${cellText((f.range as Json).readings)} readings`) : null,
        h("p", {}, `${plural(Number(f.observations), "observation")} in ${plural(Number(f.event_count), "event")}`),
        h("p", {}, ...(f.event_ids as string[]).map((id) => this.proofLink(id)))))),
      h("h3", {}, `Timeline (${timeline.length})`),
      timeline.length ? h("ol", { class: "timeline", "data-test": "timeline" }, ...timeline.map((t) => h("li", {},
        h("span", { class: "mono" }, cellText(t.at)), ` ${cellText(t.subject)} · ${cellText(t.attribute)}: ${cellText(t.from)} → ${cellText(t.to)} `,
        this.proofLink(String(t.event_id))))) : h("p", { class: "empty" }, "No state changed."),
      h("h3", {}, `Contradictions (${contradictions.length})`),
      ...contradictions.map((c) => h("div", { class: "contradiction", "data-test": "contradiction" },
        h("h4", {}, `${cellText(c.subject)} · ${cellText(c.attribute)} (${cellText(c.gap_ms)} ms apart)`),
        h("div", { class: "side-by-side" }, ...(c.observations as Json[]).map((o) => h("div", { class: "card" },
          h("p", { class: "value" }, cellText(o.value), o.unit ? ` ${cellText(o.unit)}` : ""),
          h("p", { class: "mono" }, cellText(o.at)), this.proofLink(String(o.event_id))))))),
      h("h3", {}, `Missing evidence (${missing.length})`),
      missing.length ? h("ul", { "data-test": "missing" }, ...missing.map((m) => h("li", {},
        `${cellText(m.subject)}${m.attribute ? ` · ${cellText(m.attribute)}` : ""}: ${cellText(m.reason)}${m.last_seen ? ` (last seen ${cellText(m.last_seen)})` : ""}`)))
        : h("p", { class: "empty" }, "Nothing is missing."),
      h("h3", {}, "Proof"),
      h("p", {}, proof.complete ? "Every kept item cites its sources." : "Proof is incomplete (the scan was cut)."),
      h("p", { "data-test": "proof-ids" }, ...proof.event_ids.map((id) => this.proofLink(id))),
      h("h3", {}, "Left out"),
      h("p", {}, Object.entries(exclusions).map(([k, v]) => `${k} ${cellText(v)}`).join(", ")),
      h("p", {}, `${cellText(compaction.source_records)} records of ${cellText(compaction.source_tokens)} tokens packed into ${cellText(compaction.packed_tokens)}`),
    );
  }
}
