// Writes: look up a receipt (its state and integrity digest), and try a small write from a form,
// with an Idempotency-Key filled in (a retry of the same write reuses it).
import { ConsoleError, curlFor, request } from "../client";
import { button, copyable, field, h, replace } from "../dom";
import { cellText, type Json } from "../records";

function randomHex(bytes: number): string {
  return Array.from(crypto.getRandomValues(new Uint8Array(bytes)), (b) => b.toString(16).padStart(2, "0")).join("");
}

export class WritesView {
  readonly element: HTMLElement;
  private readonly receiptId = h("input", { placeholder: "req_3f9a0c1d2b4e5f60", class: "mono", "data-test": "receipt-id" });
  private readonly receipt = h("div", { "data-test": "receipt" });
  private readonly stream = h("input", { value: "console", "data-test": "write-stream" });
  private readonly type = h("input", { value: "note", "data-test": "write-type" });
  private readonly eventId = h("input", { value: `evt-${randomHex(6)}`, "data-test": "write-id" });
  private readonly data = h("textarea", { rows: 4, class: "mono", "data-test": "write-data" }, '{"text": "hello from the console"}');
  private readonly idempotencyKey = h("input", { value: `console-${randomHex(8)}`, class: "mono", "data-test": "write-key" });
  private readonly written = h("div", { "data-test": "write-answer" });

  constructor() {
    const lookup = h("form", { class: "panel", "aria-label": "Receipt" },
      h("div", { class: "row" }, field("Receipt id", this.receiptId),
        h("button", { type: "submit", class: "primary", "data-test": "receipt-look" }, "Look up")));
    lookup.addEventListener("submit", (event) => {
      event.preventDefault();
      void this.lookUp(this.receiptId.value.trim());
    });
    const write = h("form", { class: "panel", "aria-label": "Write" },
      h("div", { class: "row" }, field("Stream", this.stream), field("Type", this.type), field("Event id", this.eventId)),
      field("data (JSON)", this.data),
      h("div", { class: "row" }, field("Idempotency-Key", this.idempotencyKey, "kept for a retry; a new write gets a new one"),
        button("New key", () => { this.idempotencyKey.value = `console-${randomHex(8)}`; this.eventId.value = `evt-${randomHex(6)}`; })),
      h("button", { type: "submit", class: "primary", "data-test": "write-send" }, "Send"));
    write.addEventListener("submit", (event) => {
      event.preventDefault();
      void this.send();
    });
    this.element = h("section", { class: "view", "aria-labelledby": "writes-title" },
      h("h2", { id: "writes-title" }, "Writes"),
      h("h3", {}, "Receipt"), lookup, this.receipt,
      h("h3", {}, "A small write"), write, this.written);
  }

  async lookUp(id: string): Promise<void> {
    this.receiptId.value = id;
    const path = `/v1/receipts/${encodeURIComponent(id)}`;
    try {
      const answer = await request<Json>("GET", path);
      const r = answer.json;
      const integrity = (r.integrity as Json | undefined) ?? {};
      replace(this.receipt,
        h("dl", { class: "facts" },
          h("dt", {}, "State"), h("dd", {}, h("span", { class: `badge ${cellText(r.status)}`, "data-test": "receipt-status" }, cellText(r.status))),
          h("dt", {}, "Events"), h("dd", {}, `${cellText(r.accepted)} accepted of ${cellText(r.submitted)}, ${cellText(r.duplicates)} duplicates, ${cellText(r.verified_events ?? 0)} verified`),
          h("dt", {}, "Integrity"), h("dd", { class: "mono", "data-test": "receipt-digest" }, `${cellText(integrity.algorithm)} ${cellText(integrity.event_set_sha256)}`),
          h("dt", {}, "Expires"), h("dd", {}, cellText(r.expires_at))),
        copyable(curlFor("GET", path), "curl command"));
    } catch (error) {
      replace(this.receipt, h("p", { class: "error", role: "alert" }, (error as Error).message));
    }
  }

  private async send(): Promise<void> {
    let data: unknown;
    try {
      data = JSON.parse(this.data.value);
    } catch (error) {
      replace(this.written, h("p", { class: "error", role: "alert" }, `data is not JSON: ${(error as Error).message}`));
      return;
    }
    const body = { stream: this.stream.value, events: [{ id: this.eventId.value, type: this.type.value,
      occurred_at: new Date().toISOString(), data }] };
    const headers = { "Idempotency-Key": this.idempotencyKey.value };
    try {
      const answer = await request<Json>("POST", "/v1/events", body, headers);
      const receiptId = cellText(answer.json.receipt_id);
      const replayed = answer.headers.get("Idempotent-Replayed") === "true";
      replace(this.written,
        h("p", { role: "status" }, `${answer.status} ${replayed ? "replayed" : "accepted"}: receipt `,
          h("span", { class: "mono", "data-test": "written-receipt" }, receiptId), " ",
          button("Check the receipt", () => void this.lookUp(receiptId))),
        copyable(curlFor("POST", "/v1/events", body, false, headers), "curl command"));
    } catch (error) {
      replace(this.written, h("p", { class: "error", role: "alert" },
        error instanceof ConsoleError ? error.message : String(error)));
    }
  }
}
