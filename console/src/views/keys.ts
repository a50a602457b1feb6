// Keys, on the admin listener: list them, create one (its secret shown once), revoke one.
import { ConsoleError, curlFor, request } from "../client";
import { button, copyable, field, h, replace, select } from "../dom";
import { cellText, type Json } from "../records";

const scopes = ["events:read", "events:write", "events:erase"];

export class KeysView {
  readonly element: HTMLElement;
  private readonly list = h("div", { "data-test": "keys" });
  private readonly created = h("div", { "data-test": "created" });
  private readonly status = h("p", { role: "status", class: "status", "data-test": "keys-status" });
  private readonly workspace = h("input", { value: "dev", required: true, "data-test": "key-workspace" });
  private readonly env = select(["test", "live"], "test", { "data-test": "key-env" });
  private readonly plan = h("input", { value: "default", "data-test": "key-plan" });
  private readonly label = h("input", { placeholder: "billing importer", maxlength: 200, "data-test": "key-label" });
  private readonly scopeBoxes = scopes.map((s) => h("input", { type: "checkbox", value: s, checked: s !== "events:erase", "data-test": `scope-${s}` }));

  constructor() {
    const form = h("form", { class: "panel", "aria-label": "New key" },
      h("div", { class: "row" }, field("Workspace", this.workspace), field("Environment", this.env),
        field("Plan", this.plan), field("Label", this.label)),
      h("fieldset", {}, h("legend", {}, "Scopes"),
        ...this.scopeBoxes.map((box) => h("label", { class: "inline" }, box, ` ${box.value}`))),
      h("button", { type: "submit", class: "primary", "data-test": "key-create" }, "Create key"));
    form.addEventListener("submit", (event) => {
      event.preventDefault();
      void this.create();
    });
    this.element = h("section", { class: "view", "aria-labelledby": "keys-title" },
      h("h2", { id: "keys-title" }, "Keys"), this.status, form, this.created, this.list);
    void this.refresh();
  }

  async refresh(): Promise<void> {
    try {
      const answer = await request<{ keys: Json[] }>("GET", "/admin/keys");
      const keys = answer.json.keys;
      replace(this.list, h("table", { class: "results" },
        h("thead", {}, h("tr", {}, ...["id", "workspace", "env", "scopes", "plan", "label", "created", "last used", "revoked", ""]
          .map((c) => h("th", { scope: "col" }, c)))),
        h("tbody", {}, ...keys.map((k) => h("tr", { "data-id": cellText(k.id) },
          h("td", { class: "mono" }, cellText(k.id)), h("td", {}, cellText(k.workspace)), h("td", {}, cellText(k.env)),
          h("td", {}, (k.scopes as string[]).join(", ")), h("td", {}, cellText(k.plan)), h("td", {}, cellText(k.label)),
          h("td", {}, cellText(k.created_at)), h("td", { "data-test": "last-used" }, k.last_used_at ? cellText(k.last_used_at) : "never"),
          h("td", {}, k.revoked_at ? cellText(k.revoked_at) : "—"),
          h("td", {}, k.revoked_at ? "" : button("Revoke", () => void this.revoke(String(k.id)),
            { "aria-label": `Revoke key ${cellText(k.id)}`, "data-test": "revoke" })))))));
    } catch (error) {
      this.status.textContent = (error as Error).message;
    }
  }

  private async create(): Promise<void> {
    const body: Json = {
      workspace: this.workspace.value.trim(), env: this.env.value, plan: this.plan.value.trim() || "default",
      scopes: this.scopeBoxes.filter((b) => b.checked).map((b) => b.value),
    };
    if (this.label.value.trim()) body.label = this.label.value.trim();
    try {
      const answer = await request<{ secret: string; key: Json }>("POST", "/admin/keys", body);
      replace(this.created,
        h("p", { role: "status" }, `Key ${cellText(answer.json.key.id)} created. Its secret is shown this once: copy it now.`),
        h("div", { "data-test": "secret" }, copyable(answer.json.secret, "the new key's secret")),
        h("p", {}, "Created the same way with curl:"),
        copyable(curlFor("POST", "/admin/keys", body, true), "curl command"));
      await this.refresh();
    } catch (error) {
      replace(this.created, h("p", { class: "error", role: "alert" },
        error instanceof ConsoleError ? error.message : String(error)));
    }
  }

  private async revoke(id: string): Promise<void> {
    if (!window.confirm(`Revoke key ${id}? Requests with it are refused from now on.`)) return;
    try {
      await request("DELETE", `/admin/keys/${encodeURIComponent(id)}`);
      this.status.textContent = `Key ${id} revoked.`;
      await this.refresh();
    } catch (error) {
      this.status.textContent = (error as Error).message;
    }
  }
}
