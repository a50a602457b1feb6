// Elements built from data, never from HTML strings: event payloads are shown as text, so a value
// that looks like markup stays text (and the Content-Security-Policy forbids inline script anyway).
type Child = Node | string | number | null | undefined | false;
type Attr = string | number | boolean | undefined | ((event: Event) => void);

export function h<K extends keyof HTMLElementTagNameMap>(
  tag: K,
  attrs: Record<string, Attr> = {},
  ...children: (Child | Child[])[]
): HTMLElementTagNameMap[K] {
  const element = document.createElement(tag);
  for (const [name, value] of Object.entries(attrs)) {
    if (value === undefined || value === false) continue;
    if (typeof value === "function") element.addEventListener(name.slice(2), value);
    else if (value === true) element.setAttribute(name, "");
    else element.setAttribute(name, String(value));
  }
  append(element, children);
  return element;
}

export function append(parent: Node, children: (Child | Child[])[]): void {
  for (const child of children.flat()) {
    if (child === null || child === undefined || child === false) continue;
    parent.appendChild(child instanceof Node ? child : document.createTextNode(String(child)));
  }
}

export function replace(parent: Element, ...children: (Child | Child[])[]): void {
  parent.replaceChildren();
  append(parent, children);
}

let nextId = 0;
// A unique id for a label's `for`.
export function uid(prefix: string): string {
  nextId += 1;
  return `${prefix}-${nextId}`;
}

// A labelled control: <label for=…>text</label> then the control.
export function field(label: string, control: HTMLElement, hint?: string): HTMLElement {
  if (!control.id) control.id = uid("f");
  return h(
    "div",
    { class: "field" },
    h("label", { for: control.id }, label),
    control,
    hint ? h("small", { class: "hint" }, hint) : null,
  );
}

export function button(text: string, onclick: () => void, attrs: Record<string, Attr> = {}) {
  return h("button", { type: "button", ...attrs, onclick: () => onclick() }, text);
}

export function select(options: readonly string[], value: string, attrs: Record<string, Attr> = {}) {
  const element = h("select", attrs, ...options.map((o) => h("option", { value: o }, o)));
  element.value = value;
  return element;
}

export async function copyText(text: string, status: HTMLElement): Promise<void> {
  try {
    await navigator.clipboard.writeText(text);
    status.textContent = "Copied.";
  } catch {
    status.textContent = "Copy was refused by the browser: select the text and copy it.";
  }
}

// A block of text with a copy button beside it.
export function copyable(text: string, label: string): HTMLElement {
  const status = h("span", { class: "copy-status", role: "status" });
  return h(
    "div",
    { class: "copyable" },
    h("pre", { class: "code", tabindex: 0, "aria-label": label }, text),
    button("Copy", () => void copyText(text, status), { "aria-label": `Copy ${label}` }),
    status,
  );
}
