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

// Rows are laid out in blocks of this many; a block off screen is neither laid out nor painted
// until it scrolls near (content-visibility), so a page of 1,000 records shows as fast as one of
// a screenful, while every row stays in the document (found by the browser's search, read by
// screen readers).
const rowsPerBlock = 40;

export function resultsTable(rows: Json[], columns: string[], open: (record: Json) => void): HTMLElement {
  if (!rows.length) return h("p", { class: "empty", "data-test": "no-results" }, "No records matched.");
  const records = rows.map(storedRecord);
  const header = h("div", { role: "row", class: "grid-row head" },
    ...columns.map((c) => h("div", { role: "columnheader" }, c)), h("div", { role: "columnheader" }, ""));
  const blocks: HTMLElement[] = [];
  for (let first = 0; first < rows.length; first += rowsPerBlock) {
    // The first block is on screen: always drawn. The others are drawn as they come near, each
    // held meanwhile at the height its rows will about take.
    const block = h("div", { role: "rowgroup", class: first === 0 ? "row-block" : "row-block deferred" });
    if (first > 0) {
      const count = Math.min(rowsPerBlock, rows.length - first);
      block.style.setProperty("contain-intrinsic-size", `auto ${(count * 2.1).toFixed(1)}rem`);
    }
    for (let i = first; i < Math.min(rows.length, first + rowsPerBlock); i += 1) {
      const record = records[i];
      const row = document.createElement("div");
      row.setAttribute("role", "row");
      row.className = "grid-row";
      row.dataset.id = cellText(record.id);
      row.dataset.index = String(i);
      for (const c of columns) {
        const cell = document.createElement("div");
        cell.setAttribute("role", "cell");
        cell.textContent = cellText(valueAt(c === "score" ? rows[i] : record, c));
        row.append(cell);
      }
      const action = document.createElement("div");
      action.setAttribute("role", "cell");
      const openButton = document.createElement("button");
      openButton.type = "button";
      openButton.textContent = "Open";
      openButton.setAttribute("aria-label", `Open record ${row.dataset.id}`);
      action.append(openButton);
      row.append(action);
      block.append(row);
    }
    blocks.push(block);
  }
  const table = h("div", { role: "table", class: "records", "data-test": "results", "aria-label": "Results" },
    h("div", { role: "rowgroup" }, header), ...blocks);
  table.style.setProperty("--columns", String(columns.length));
  // One listener for every row's button.
  table.addEventListener("click", (event) => {
    const target = event.target as HTMLElement;
    if (target.tagName !== "BUTTON") return;
    const row = target.closest<HTMLElement>("[data-index]");
    if (row) open(records[Number(row.dataset.index)]);
  });
  return h("div", { class: "table-wrap" }, table);
}
