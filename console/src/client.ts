// Every request the console makes: same origin, the tab's credential as a Bearer token, and errors
// turned into sentences a person can act on (API-SPEC 2.10's message when the server gave one).
import { credential } from "./session";

export interface Answer<T = unknown> {
  status: number;
  json: T;
  headers: Headers;
}

export class ConsoleError extends Error {
  constructor(
    message: string,
    readonly status: number,
    readonly body?: unknown,
  ) {
    super(message);
  }
}

// Called when the server refuses the credential (401): the app signs out and says why.
let onRefused: (message: string) => void = () => {};
export function whenRefused(handler: (message: string) => void): void {
  onRefused = handler;
}

export const refusedCredential =
  "The server refused the credential (wrong, revoked or expired). Sign in again with a valid one.";

// For a request made without request() (the tail's stream): the same sign-out as any 401.
export function reportRefused(): void {
  onRefused(refusedCredential);
}

export const unreachable =
  "The server did not answer: it may have stopped, or the network is down. Try again once it is back.";

function describe(status: number, body: unknown): string {
  const error = body as { message?: string; statusMessage?: string } | null;
  const said = error?.message ?? error?.statusMessage;
  return said ? `${status}: ${said}` : `The server answered ${status}.`;
}

export async function request<T = unknown>(
  method: string,
  path: string,
  body?: unknown,
  extraHeaders: Record<string, string> = {},
): Promise<Answer<T>> {
  const headers: Record<string, string> = { ...extraHeaders };
  const secret = credential();
  if (secret) headers.Authorization = `Bearer ${secret}`;
  if (body !== undefined) headers["Content-Type"] = "application/json";
  let response: Response;
  try {
    response = await fetch(path, {
      method,
      headers,
      body: body === undefined ? undefined : JSON.stringify(body),
      cache: "no-store",
      credentials: "omit",
    });
  } catch {
    throw new ConsoleError(unreachable, 0);
  }
  const text = await response.text();
  let json: unknown = null;
  try {
    json = text ? JSON.parse(text) : null;
  } catch {
    json = text;
  }
  if (response.status === 401) {
    onRefused(refusedCredential);
    throw new ConsoleError(refusedCredential, 401, json);
  }
  if (!response.ok) throw new ConsoleError(describe(response.status, json), response.status, json);
  return { status: response.status, json: json as T, headers: response.headers };
}

const quote = (text: string) => `'${text.replace(/'/g, `'\\''`)}'`;

// The same request as a curl command. The credential is never written out: the line names
// $EVENTSVC_KEY (or $EVENTSVC_ADMIN_TOKEN), which the reader sets in their own shell. Certificates
// are checked (no -k): against a server with a self-signed certificate, add --cacert with it.
export function curlFor(method: string, path: string, body?: unknown, admin = false,
  headers: Record<string, string> = {}): string {
  const base = `${location.protocol}//${location.host}`;
  const variable = admin ? "$EVENTSVC_ADMIN_TOKEN" : "$EVENTSVC_KEY";
  const parts = ["curl -s"];
  if (method !== "GET" && !(method === "POST" && body !== undefined)) parts.push(`-X ${method}`);
  parts.push(quote(base + path), `-H "Authorization: Bearer ${variable}"`);
  for (const [name, value] of Object.entries(headers)) parts.push(`-H ${quote(`${name}: ${value}`)}`);
  if (body !== undefined) {
    parts.push(`-H 'Content-Type: application/json'`, `-d ${quote(JSON.stringify(body))}`);
  }
  return parts.join(" ");
}
