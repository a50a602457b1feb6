// Operations, on the admin listener: readiness with its reasons, and a few of /metrics as small
// charts, read every 2 seconds while the view is open.
import { lineChart } from "../charts";
import { request } from "../client";
import { h, replace } from "../dom";

// The series shown: a counter is drawn as its rate per second, a gauge as it is.
const series: { name: string; title: string; rate: boolean }[] = [
  { name: "eventsvc_http_requests_total", title: "Requests per second", rate: true },
  { name: "eventsvc_ingest_events_total", title: "Events accepted per second", rate: true },
  { name: "eventsvc_storage_projected_events_total", title: "Events made searchable per second", rate: true },
  { name: "eventsvc_storage_projection_lag_seconds", title: "Projection lag (s)", rate: false },
  { name: "eventsvc_connections_open", title: "Open connections", rate: false },
];
const kept = 60;

// The sum of every sample of a metric family in Prometheus' text format.
export function metricSum(text: string, name: string): number | null {
  let sum: number | null = null;
  for (const line of text.split("\n")) {
    if (!line.startsWith(name)) continue;
    const rest = line.slice(name.length);
    if (rest[0] !== " " && rest[0] !== "{") continue;
    const value = Number(line.slice(line.lastIndexOf(" ") + 1));
    if (!Number.isNaN(value)) sum = (sum ?? 0) + value;
  }
  return sum;
}

export class OperationsView {
  readonly element: HTMLElement;
  private readonly readiness = h("div", { "data-test": "readiness" });
  private readonly charts = h("div", { class: "cards" });
  private readonly history = new Map<string, number[]>();
  private previous: { at: number; values: Map<string, number> } | null = null;
  private timer = 0;

  constructor() {
    this.element = h("section", { class: "view", "aria-labelledby": "operations-title" },
      h("h2", { id: "operations-title" }, "Operations"), this.readiness, this.charts);
    void this.poll();
    this.timer = window.setInterval(() => {
      if (!this.element.isConnected) window.clearInterval(this.timer);
      else void this.poll();
    }, 2000);
  }

  private async poll(): Promise<void> {
    const ready = await fetch("/readyz", { cache: "no-store" }).then((r) => r.json() as Promise<Record<string, unknown>>)
      .catch(() => null);
    if (!ready) {
      replace(this.readiness, h("p", { class: "error", role: "alert" }, "The server did not answer /readyz."));
      return;
    }
    const reasons = (ready.reasons as string[] | undefined) ?? [];
    replace(this.readiness, h("p", {}, "Readiness: ",
      h("span", { class: `badge ${String(ready.status)}` }, String(ready.status)),
      reasons.length ? ` (${reasons.join("; ")})` : ""));
    let text: string;
    try {
      text = (await request<string>("GET", "/metrics")).json;
    } catch {
      return;
    }
    const now = performance.now();
    const values = new Map(series.map((s) => [s.name, metricSum(text, s.name) ?? 0]));
    for (const s of series) {
      const value = values.get(s.name) ?? 0;
      let point = value;
      if (s.rate) {
        if (!this.previous) continue;
        const seconds = (now - this.previous.at) / 1000;
        point = Math.max(0, (value - (this.previous.values.get(s.name) ?? 0)) / seconds);
      }
      const points = this.history.get(s.name) ?? [];
      points.push(point);
      if (points.length > kept) points.shift();
      this.history.set(s.name, points);
    }
    this.previous = { at: now, values };
    replace(this.charts, ...series.map((s) => {
      const points = this.history.get(s.name) ?? [];
      return h("article", { class: "card" }, h("h4", {}, s.title),
        h("p", { class: "value" }, points.length ? points[points.length - 1].toFixed(s.rate ? 1 : 2) : "…"),
        lineChart(s.title, points.map((value, i) => ({ label: `${(i - points.length + 1) * 2}s`, value }))));
    }));
  }
}
