// The workspace's field names for autocompletion, from GET /v1/fields (read once per sign-in, for
// the last 7 days), offered through one shared <datalist>.
import { h } from "./dom";
import { request } from "./client";

export interface FieldInfo {
  field: string;
  count: number;
  types: Record<string, number>;
}

const canonical = ["id", "type", "stream", "namespace", "site_id", "source_id", "timestamp",
  "ingested_at", "receipt_id"];

export const fieldList = h("datalist", { id: "eventsvc-fields" },
  ...canonical.map((name) => h("option", { value: name })));

let loaded: Promise<FieldInfo[]> | null = null;

export function loadFields(): Promise<FieldInfo[]> {
  if (!loaded) {
    loaded = request<{ fields: FieldInfo[] }>("GET", "/v1/fields?from=now-7d")
      .then((answer) => {
        const fields = answer.json.fields;
        fieldList.replaceChildren(
          ...fields.map((f) =>
            h("option", { value: f.field }, `${f.field} (${Object.keys(f.types).join(", ")})`),
          ),
        );
        return fields;
      })
      .catch(() => {
        loaded = null;
        return [];
      });
  }
  return loaded;
}

export function forgetFields(): void {
  loaded = null;
}
