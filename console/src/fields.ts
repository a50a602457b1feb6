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

export const fieldList = h("datalist", { id: "eventsvc-fields" });

let loaded: Promise<FieldInfo[]> | null = null;
let session = 0;  // bumped at sign-out: a list still on its way then belongs to the last key

function canonicalOptions(): HTMLOptionElement[] {
  return canonical.map((name) => h("option", { value: name }));
}

// The last 7 days; a plan that keeps fewer (403) gets the last 24 hours.
async function readFields(): Promise<FieldInfo[]> {
  try {
    return (await request<{ fields: FieldInfo[] }>("GET", "/v1/fields?from=now-7d")).json.fields;
  } catch (error) {
    if ((error as { status?: number }).status !== 403) throw error;
    return (await request<{ fields: FieldInfo[] }>("GET", "/v1/fields")).json.fields;
  }
}

export function loadFields(): Promise<FieldInfo[]> {
  if (!loaded) {
    const mine = session;
    loaded = readFields()
      .then((fields) => {
        if (mine !== session) return [];
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

fieldList.replaceChildren(...canonicalOptions());

export function forgetFields(): void {
  session += 1;
  loaded = null;
  fieldList.replaceChildren(...canonicalOptions());
}
