// Live tail: every event a filter matches as it becomes searchable (GET /v1/tail), newest on top,
// with pause (events keep arriving and wait) and resume.
import { ConsoleError, curlFor, refusedCredential, reportRefused, unreachable } from "../client";
import { button, copyable, field, h, replace } from "../dom";
import { fieldList } from "../fields";
import { credential } from "../session";
import { SseParser } from "../sse";
import { RecordInspector, cellText, type Json } from "../records";

const shownAtMost = 500;  // events on screen; also the most that wait while paused

export class TailView {
  readonly element: HTMLElement;
  private readonly stream = h("input", { placeholder: "orders", "data-test": "tail-stream" });
  private readonly where = h("input", { placeholder: '{"type": "order.created"}', class: "mono", "data-test": "tail-where" });
  private readonly fields = h("input", { placeholder: "id,type,payload.amount", list: "eventsvc-fields" });
  private readonly status = h("p", { role: "status", class: "status", "data-test": "tail-status" });
  private readonly list = h("ol", { class: "tail", reversed: true, "data-test": "tail-events", "aria-live": "polite" });
  private readonly curl = h("div", { class: "curl" });
  private readonly inspector = new RecordInspector();
  private readonly startButton: HTMLButtonElement;
  private readonly pauseButton: HTMLButtonElement;
  private abort: AbortController | null = null;
  private paused = false;
  private waiting: Json[] = [];
  private waitingCount = 0;  // all that came while paused; the newest shownAtMost are kept
  private received = 0;
  // Where the last tail got to (the log position of its last message) and its filter: starting
  // the same filter again resumes right after it, without a gap or a duplicate.
  private resume: { url: string; id: string } | null = null;

  constructor() {
    this.startButton = button("Start", () => (this.abort ? this.stop() : void this.start()), { class: "primary", "data-test": "tail-start" });
    this.pauseButton = button("Pause", () => this.togglePause(), { disabled: true, "data-test": "tail-pause" });
    this.element = h("section", { class: "view", "aria-labelledby": "tail-title" },
      h("h2", { id: "tail-title" }, "Live tail"), fieldList,
      h("div", { class: "panel" },
        h("div", { class: "row" },
          field("Stream", this.stream), field("Conditions (where, JSON)", this.where),
          field("Fields", this.fields, "comma-separated; empty: whole records")),
        h("div", { class: "row" }, this.startButton, this.pauseButton)),
      this.status, this.curl, this.inspector.element, this.list);
  }

  private filterUrl(): string {
    const params = new URLSearchParams();
    if (this.stream.value.trim()) params.set("stream", this.stream.value.trim());
    if (this.where.value.trim()) params.set("where", this.where.value.trim());
    if (this.fields.value.trim()) params.set("fields", this.fields.value.replace(/\s/g, ""));
    const query = params.toString();
    return `/v1/tail${query ? `?${query}` : ""}`;
  }

  async start(): Promise<void> {
    const filter = this.filterUrl();
    const since = this.resume?.url === filter ? this.resume.id : null;
    const url = since ? `${filter}${filter.includes("?") ? "&" : "?"}since=${encodeURIComponent(since)}` : filter;
    replace(this.curl, copyable(curlFor("GET", url).replace("curl -s", "curl -sN"), "curl command"));
    this.abort = new AbortController();
    this.received = 0;
    this.waiting = [];
    this.waitingCount = 0;
    this.paused = false;
    this.startButton.textContent = "Stop";
    this.pauseButton.disabled = false;
    this.pauseButton.textContent = "Pause";
    this.status.textContent = "Connecting…";
    try {
      const response = await fetch(url, {
        headers: { Authorization: `Bearer ${credential() ?? ""}`, Accept: "text/event-stream" },
        signal: this.abort.signal, cache: "no-store", credentials: "omit",
      });
      if (response.status === 401) {
        reportRefused();
        throw new ConsoleError(refusedCredential, 401);
      }
      if (!response.ok || !response.body) {
        const body = (await response.json().catch(() => null)) as { message?: string } | null;
        throw new ConsoleError(`${response.status}: ${body?.message ?? response.statusText}`, response.status);
      }
      const reader = response.body.pipeThrough(new TextDecoderStream()).getReader();
      const parser = new SseParser();
      for (;;) {
        const { value, done } = await reader.read();
        if (done) break;
        for (const message of parser.push(value)) {
          if (message.id) this.resume = { url: filter, id: message.id };
          this.receive(message.event, message.data);
        }
      }
      this.status.textContent = "The server ended the tail (it may be stopping); start again to resume where it stopped.";
    } catch (error) {
      if (this.abort?.signal.aborted) this.status.textContent = "Stopped.";
      else this.status.textContent = error instanceof ConsoleError ? error.message : unreachable;
    } finally {
      this.abort = null;
      this.startButton.textContent = "Start";
      this.pauseButton.disabled = true;
    }
  }

  stop(): void {
    this.abort?.abort();
  }

  private togglePause(): void {
    this.paused = !this.paused;
    this.pauseButton.textContent = this.paused ? "Resume" : "Pause";
    if (!this.paused) {
      for (const record of this.waiting) this.show(record);
      this.waiting = [];
      this.waitingCount = 0;
    }
    this.describe();
  }

  private receive(event: string, data: string): void {
    if (event === "open") {
      this.status.textContent = "Live: waiting for events.";
      return;
    }
    if (event === "lagged") {
      const lag = JSON.parse(data) as { missed: number };
      this.list.prepend(h("li", { class: "lagged" }, `${lag.missed} matching events were skipped (the tail fell behind); export them with the lagged event's body.`));
      return;
    }
    if (event === "end") return;
    const record = JSON.parse(data) as Json;
    this.received += 1;
    if (this.paused) {
      this.waiting.push(record);
      this.waitingCount += 1;
      if (this.waiting.length > shownAtMost) this.waiting.shift();
    } else {
      this.show(record);
    }
    this.describe();
  }

  private describe(): void {
    this.status.textContent = this.paused
      ? `Paused: ${this.waitingCount} new event${this.waitingCount === 1 ? "" : "s"} waiting` +
        (this.waitingCount > this.waiting.length ? ` (the newest ${this.waiting.length} will be shown).` : ".")
      : `Live: ${this.received} event${this.received === 1 ? "" : "s"} received.`;
  }

  private show(record: Json): void {
    const item = h("li", { "data-id": cellText(record.id) },
      h("span", { class: "mono" }, cellText(record.timestamp)), " ",
      h("strong", {}, cellText(record.type)), " ", cellText(record.id), " ",
      button("Open", () => this.inspector.show(record), { "aria-label": `Open record ${cellText(record.id)}` }));
    this.list.prepend(item);
    while (this.list.children.length > shownAtMost) this.list.lastElementChild?.remove();
  }
}
