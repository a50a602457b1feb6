// A time range: relative ("the last hour", as a time expression the server evaluates) or absolute
// (two instants picked in the browser's time zone, sent as RFC 3339 UTC).
import { field, h, select } from "./dom";

export interface Range {
  from: string;  // as sent: a time expression or RFC 3339
  to: string;
  fromMs: number;  // the same instants, as read now
  toMs: number;
  spanMs: number;
}

const relative: Record<string, number> = {
  "15m": 15 * 60_000,
  "1h": 3_600_000,
  "6h": 6 * 3_600_000,
  "24h": 24 * 3_600_000,
  "7d": 7 * 86_400_000,
  "30d": 30 * 86_400_000,
};

function localInput(ms: number): string {
  const date = new Date(ms - new Date(ms).getTimezoneOffset() * 60_000);
  return date.toISOString().slice(0, 16);
}

export class TimeRangeControl {
  readonly element: HTMLElement;
  private readonly choice: HTMLSelectElement;
  private readonly fromInput: HTMLInputElement;
  private readonly toInput: HTMLInputElement;

  constructor(initial = "24h") {
    const options = [...Object.keys(relative).map((k) => `last ${k}`), "absolute"];
    this.choice = select(options, `last ${initial}`, { "data-test": "range" });
    const now = Date.now();
    this.fromInput = h("input", { type: "datetime-local", value: localInput(now - 3_600_000) });
    this.toInput = h("input", { type: "datetime-local", value: localInput(now) });
    const absolute = h(
      "div",
      { class: "row", hidden: true },
      field("From", this.fromInput),
      field("To", this.toInput),
    );
    this.choice.addEventListener("change", () => {
      absolute.hidden = this.choice.value !== "absolute";
    });
    this.element = h("div", { class: "row" }, field("Time range", this.choice), absolute);
  }

  value(): Range {
    if (this.choice.value === "absolute") {
      const from = new Date(this.fromInput.value).getTime();
      const to = new Date(this.toInput.value).getTime();
      if (Number.isNaN(from) || Number.isNaN(to)) throw new Error("Give both instants of the range.");
      if (from > to) throw new Error("The range starts after it ends.");
      return { from: new Date(from).toISOString(), to: new Date(to).toISOString(), fromMs: from, toMs: to,
        spanMs: to - from };
    }
    const key = this.choice.value.replace("last ", "");
    const now = Date.now();
    return { from: `now-${key}`, to: "now", fromMs: now - relative[key], toMs: now, spanMs: relative[key] };
  }
}

const widths: [number, string][] = [
    [1_000, "1s"], [5_000, "5s"], [15_000, "15s"], [60_000, "1m"], [300_000, "5m"],
    [900_000, "15m"], [3_600_000, "1h"], [3 * 3_600_000, "3h"], [6 * 3_600_000, "6h"],
    [86_400_000, "1d"], [7 * 86_400_000, "7d"], [30 * 86_400_000, "30d"],
];

// A bucket width that gives at most 60 buckets over `spanMs`, from widths people read easily.
export function bucketInterval(spanMs: number): { name: string; ms: number } {
  for (const [ms, name] of widths) if (spanMs / ms <= 60) return { name, ms };
  return { name: "30d", ms: 30 * 86_400_000 };
}

// Every bucket of the range (aligned as the server aligns them: whole multiples of the width
// since the epoch), with its count from `counts` (bucket start in ms → count) or 0.
export function everyBucket(range: Range, widthMs: number, counts: Map<number, number>): { start: number; count: number }[] {
  const buckets = [];
  for (let start = Math.floor(range.fromMs / widthMs) * widthMs; start <= range.toMs; start += widthMs) {
    buckets.push({ start, count: counts.get(start) ?? 0 });
  }
  return buckets;
}
