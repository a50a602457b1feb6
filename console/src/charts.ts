// Small SVG charts drawn from an answer's numbers: bars for groups, a line (with its points) for
// time buckets. Colours come from the stylesheet (classes), so light and dark both read.
const svgNs = "http://www.w3.org/2000/svg";

function svg<K extends keyof SVGElementTagNameMap>(
  tag: K,
  attrs: Record<string, string | number>,
  text?: string,
): SVGElementTagNameMap[K] {
  const element = document.createElementNS(svgNs, tag);
  for (const [name, value] of Object.entries(attrs)) element.setAttribute(name, String(value));
  if (text !== undefined) element.textContent = text;
  return element;
}

export interface Point {
  label: string;
  value: number;
}

const width = 640;
const height = 180;
const pad = { left: 48, right: 8, top: 8, bottom: 28 };

function frame(title: string, points: Point[]): { root: SVGSVGElement; max: number } {
  const root = svg("svg", { viewBox: `0 0 ${width} ${height}`, class: "chart", role: "img" });
  root.append(svg("title", {}, title));
  const max = Math.max(1, ...points.map((p) => p.value));
  root.append(
    svg("text", { x: pad.left - 6, y: pad.top + 10, class: "axis", "text-anchor": "end" },
      formatNumber(max)),
    svg("text", { x: pad.left - 6, y: height - pad.bottom, class: "axis", "text-anchor": "end" }, "0"),
    svg("line", { x1: pad.left, y1: height - pad.bottom, x2: width - pad.right,
      y2: height - pad.bottom, class: "baseline" }),
  );
  return { root, max };
}

export function formatNumber(value: number): string {
  if (Math.abs(value) >= 1e6) return `${(value / 1e6).toPrecision(3)}M`;
  if (Math.abs(value) >= 1e4) return `${(value / 1e3).toPrecision(3)}k`;
  return Number.isInteger(value) ? String(value) : value.toPrecision(4);
}

// One bar per point (groups, or a histogram's buckets), in the order given.
export function barChart(title: string, points: Point[]): SVGSVGElement {
  const { root, max } = frame(title, points);
  const plotWidth = width - pad.left - pad.right;
  const plotHeight = height - pad.top - pad.bottom;
  const step = plotWidth / Math.max(1, points.length);
  points.forEach((point, i) => {
    const barHeight = (Math.max(0, point.value) / max) * plotHeight;
    const bar = svg("rect", {
      x: pad.left + i * step + step * 0.1, y: height - pad.bottom - barHeight,
      width: Math.max(1, step * 0.8), height: barHeight, class: "bar",
    });
    bar.append(svg("title", {}, `${point.label}: ${point.value}`));
    root.append(bar);
    if (points.length <= 12) {
      const label = point.label.length > 14 ? `${point.label.slice(0, 13)}…` : point.label;
      root.append(svg("text", { x: pad.left + (i + 0.5) * step, y: height - 8, class: "axis", "text-anchor": "middle" }, label));
    }
  });
  if (points.length > 12) labelEnds(root, points);
  return root;
}

// A line through the points, left to right (time buckets, oldest first).
export function lineChart(title: string, points: Point[]): SVGSVGElement {
  const { root, max } = frame(title, points);
  const plotWidth = width - pad.left - pad.right;
  const plotHeight = height - pad.top - pad.bottom;
  const x = (i: number) => pad.left + (points.length <= 1 ? plotWidth / 2 : (i / (points.length - 1)) * plotWidth);
  const y = (v: number) => height - pad.bottom - (v / max) * plotHeight;
  const path = points.map((p, i) => `${i === 0 ? "M" : "L"}${x(i).toFixed(1)},${y(p.value).toFixed(1)}`);
  if (points.length) root.append(svg("path", { d: path.join(" "), class: "line" }));
  points.forEach((p, i) => {
    const dot = svg("circle", { cx: x(i), cy: y(p.value), r: 2.5, class: "dot" });
    dot.append(svg("title", {}, `${p.label}: ${p.value}`));
    root.append(dot);
  });
  labelEnds(root, points);
  return root;
}

function labelEnds(root: SVGSVGElement, points: Point[]): void {
  if (!points.length) return;
  root.append(svg("text", { x: pad.left, y: height - 8, class: "axis" }, points[0].label));
  if (points.length > 1) {
    root.append(svg("text", { x: width - pad.right, y: height - 8, class: "axis", "text-anchor": "end" },
      points[points.length - 1].label));
  }
}
