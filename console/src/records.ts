// A page of records as a table with chosen columns, and the inspector that opens one record: its
// JSON, its digest and its verification state.
import { button, copyable, h, replace } from "./dom";

export type Json = Record<string, unknown>;

// The value at a field name (`payload.site`, `payload.items.0.sku`) of a record.
export function valueAt(record: Json, name: string): unknown {
  let value: unknown = record;
  for (const segment of name.split(".")) {
    if (value === null || typeof value !== "object") return undefined;
    value = (value as Record<string, unknown>)[segment];
  }
  return value;
}

export function cellText(value: unknown): string {
  if (value === undefined) return "";
  if (typeof value === "string") return value;
  return JSON.stringify(value);
}

// The stored record of a search result (which wraps it in `record`), or the record itself.
export function storedRecord(row: Json): Json {
  return (row.record as Json | undefined) ?? row;
}

export class RecordInspector {
  readonly element = h("section", { class: "inspector", "aria-label": "Record", hidden: true });

  show(record: Json): void {
    const verification = String(record.verification ?? "unknown");
    replace(
      this.element,
      h("div", { class: "row spread" },
        h("h3", {}, `Record ${cellText(record.id)}`),
        button("Close", () => this.close(), { "data-test": "close-record" })),
      h("dl", { class: "facts" },
        h("dt", {}, "Verification"),
        h("dd", {}, h("span", { class: `badge ${verification}`, "data-test": "verification" }, verification)),
        h("dt", {}, "Proof digest"),
        h("dd", { class: "mono", "data-test": "digest" }, cellText(record.proof_digest)),
        h("dt", {}, "Timestamp"),
        h("dd", {}, cellText(record.timestamp)),
        h("dt", {}, "Receipt"),
        h("dd", { class: "mono" }, cellText(record.receipt_id))),
      copyable(JSON.stringify(record, null, 2), "record JSON"),
    );
    this.element.hidden = false;
    (this.element.querySelector("button") as HTMLButtonElement).focus();
  }

  close(): void {
    this.element.hidden = true;
  }
}

export function resultsTable(rows: Json[], columns: string[], open: (record: Json) => void): HTMLElement {
  if (!rows.length) return h("p", { class: "empty", "data-test": "no-results" }, "No records matched.");
  return h(
    "div",
    { class: "table-wrap" },
    h("table", { class: "results", "data-test": "results" },
      h("thead", {}, h("tr", {}, ...columns.map((c) => h("th", { scope: "col" }, c)), h("th", {}, ""))),
      h("tbody", {}, ...rows.map((row) => {
        const record = storedRecord(row);
        return h("tr", { "data-id": cellText(record.id) },
          ...columns.map((c) => h("td", {}, cellText(valueAt(c === "score" ? row : record, c)))),
          h("td", {}, button("Open", () => open(record), { "aria-label": `Open record ${cellText(record.id)}` })));
      }))),
  );
}
