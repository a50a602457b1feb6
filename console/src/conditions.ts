// The conditions of a `where` (docs/api.md, Conditions): rows of field, operator and operand, with
// field names offered from the workspace's fields.
import { button, h, select } from "./dom";

export const operators = ["eq", "ieq", "neq", "in", "not_in", "gt", "gte", "lt", "lte", "exists",
  "contains", "prefix"] as const;

interface Row {
  element: HTMLElement;
  field: HTMLInputElement;
  operator: HTMLSelectElement;
  operand: HTMLInputElement;
}

// An operand as typed: JSON when it reads as JSON (numbers, true, null, "quoted", [lists]),
// otherwise the text itself; `in` and `not_in` also take a comma-separated list.
export function parseOperand(operator: string, text: string): unknown {
  const parse = (t: string): unknown => {
    try {
      return JSON.parse(t);
    } catch {
      return t;
    }
  };
  if (operator === "in" || operator === "not_in") {
    const value = parse(text.trim());
    if (Array.isArray(value)) return value;
    return text.split(",").map((part) => parse(part.trim()));
  }
  if (operator === "exists") return text.trim() !== "false";
  if (["contains", "prefix", "ieq"].includes(operator)) return text;
  return parse(text.trim());
}

export class ConditionsEditor {
  readonly element: HTMLElement;
  private readonly rows: Row[] = [];
  private readonly list: HTMLElement;

  constructor() {
    this.list = h("div", { class: "conditions" });
    this.element = h(
      "fieldset",
      { class: "conditions-box" },
      h("legend", {}, "Conditions"),
      this.list,
      button("Add condition", () => this.add(), { "data-test": "add-condition" }),
    );
  }

  add(fieldName = "", operator = "eq", operand = ""): void {
    const n = this.rows.length + 1;
    const row: Row = {
      field: h("input", { list: "eventsvc-fields", value: fieldName, placeholder: "payload.status",
        "aria-label": `Condition ${n} field`, "data-test": "condition-field" }),
      operator: select(operators, operator, { "aria-label": `Condition ${n} operator`,
        "data-test": "condition-operator" }),
      operand: h("input", { value: operand, placeholder: "value",
        "aria-label": `Condition ${n} value`, "data-test": "condition-value" }),
      element: h("div", { class: "row condition" }),
    };
    const remove = button("Remove", () => {
      this.rows.splice(this.rows.indexOf(row), 1);
      row.element.remove();
    }, { "aria-label": `Remove condition ${n}` });
    row.element.append(row.field, row.operator, row.operand, remove);
    this.rows.push(row);
    this.list.append(row.element);
  }

  // The conditions as a `where` object; two bounds on one field are merged into one condition.
  where(): Record<string, unknown> {
    const where: Record<string, unknown> = {};
    for (const row of this.rows) {
      const name = row.field.value.trim();
      if (!name) continue;
      const operand = parseOperand(row.operator.value, row.operand.value);
      const existing = where[name];
      if (existing && typeof existing === "object" && !Array.isArray(existing)) {
        (existing as Record<string, unknown>)[row.operator.value] = operand;
      } else {
        where[name] = { [row.operator.value]: operand };
      }
    }
    return where;
  }
}
