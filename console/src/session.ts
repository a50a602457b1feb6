// The credential of this tab: kept in sessionStorage (this tab only, gone when it closes), never in
// a URL, a cookie or the page's address; sign-out forgets it.
const keyName = "eventsvc.credential";

export function credential(): string | null {
  return sessionStorage.getItem(keyName);
}

export function signIn(secret: string): void {
  sessionStorage.setItem(keyName, secret);
}

export function signOut(): void {
  sessionStorage.removeItem(keyName);
}

// Which listener served the page: "api" (the /v1 API, signed in with an API key) or "admin" (key
// management and operations, signed in with the admin token).
export type Listener = "api" | "admin";

export function listener(): Listener {
  const meta = document.querySelector('meta[name="eventsvc-listener"]');
  return meta?.getAttribute("content") === "admin" ? "admin" : "api";
}
