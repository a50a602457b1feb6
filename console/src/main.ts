// The console's shell: sign-in, then the views of the listener that served it (the API's, or the
// admin listener's), one at a time, chosen by the address's #fragment.
import "./styles.css";
import { ConsoleError, request, whenRefused } from "./client";
import { button, field, h, replace } from "./dom";
import { forgetFields } from "./fields";
import { credential, listener, signIn, signOut } from "./session";
import { ContextView } from "./views/context";
import { ExploreView } from "./views/explore";
import { KeysView } from "./views/keys";
import { OperationsView } from "./views/operations";
import { TailView } from "./views/tail";
import { WritesView } from "./views/writes";

interface ViewEntry {
  name: string;
  title: string;
  make: () => { element: HTMLElement };
}

const views: ViewEntry[] =
  listener() === "admin"
    ? [
        { name: "keys", title: "Keys", make: () => new KeysView() },
        { name: "operations", title: "Operations", make: () => new OperationsView() },
      ]
    : [
        { name: "explore", title: "Explore", make: () => new ExploreView() },
        { name: "context", title: "Context Pack", make: () => new ContextView() },
        { name: "tail", title: "Live tail", make: () => new TailView() },
        { name: "writes", title: "Writes", make: () => new WritesView() },
      ];

const app = document.getElementById("app") as HTMLElement;
let current: { element: HTMLElement; stop?: () => void } | null = null;

function applyTheme(theme: string | null): void {
  if (theme) document.documentElement.dataset.theme = theme;
  else delete document.documentElement.dataset.theme;
}
applyTheme(localStorage.getItem("eventsvc.theme"));

function themeButton(): HTMLButtonElement {
  return button("Light / dark", () => {
    const dark = document.documentElement.dataset.theme === "dark" ||
      (!document.documentElement.dataset.theme && matchMedia("(prefers-color-scheme: dark)").matches);
    const theme = dark ? "light" : "dark";
    localStorage.setItem("eventsvc.theme", theme);
    applyTheme(theme);
  }, { "data-test": "theme" });
}

function showSignIn(message = ""): void {
  const admin = listener() === "admin";
  const secret = h("input", { type: "password", autocomplete: "off", required: true, "data-test": "secret",
    placeholder: admin ? "the admin token (admin.token in the data directory)" : "key_test_…" });
  const status = h("p", { role: "alert", class: message ? "error" : "", "data-test": "signin-message" }, message);
  const form = h("form", { class: "panel signin", "aria-labelledby": "signin-title" },
    h("h2", { id: "signin-title" }, admin ? "Sign in with the admin token" : "Sign in with an API key"),
    field(admin ? "Admin token" : "API key", secret,
      "kept in this tab's session storage only (gone when the tab closes), never in the address or a cookie; sign out forgets it"),
    h("button", { type: "submit", class: "primary", "data-test": "signin" }, "Sign in"),
    status);
  form.addEventListener("submit", (event) => {
    event.preventDefault();
    void trySignIn(secret.value.trim(), status);
  });
  replace(app, header(false), h("main", { id: "main" }, form));
  secret.focus();
}

// True while a credential is being checked: its refusal is answered on the sign-in form itself.
let checking = false;

// Checks the credential with a request that needs it, and says plainly why it was refused.
async function trySignIn(secret: string, status: HTMLElement): Promise<void> {
  signIn(secret);
  status.className = "";
  status.textContent = "Checking…";
  checking = true;
  try {
    await request("GET", listener() === "admin" ? "/admin/keys" : "/v1/fields?sample=1");
  } catch (error) {
    const consoleError = error as ConsoleError;
    // A key without events:read still signs in: it can write, and the views say what it may not.
    if (consoleError.status !== 403) {
      signOut();
      status.className = "error";
      status.textContent = consoleError.status === 401
        ? (listener() === "admin" ? "That is not the admin token." : "That key was refused: it is wrong, revoked or expired.")
        : consoleError.message;
      return;
    }
  } finally {
    checking = false;
  }
  showView();
}

function header(signedIn: boolean): HTMLElement {
  const nav = signedIn
    ? h("nav", { "aria-label": "Views" }, h("ul", {}, ...views.map((v) => h("li", {},
        h("a", { href: `#${v.name}`, "data-view": v.name, "aria-current": location.hash === `#${v.name}` ? "page" : undefined }, v.title)))))
    : null;
  return h("header", { class: "top" },
    h("a", { class: "skip", href: "#main" }, "Skip to the view"),
    h("h1", {}, "eventsvc", h("span", { class: "where" }, listener() === "admin" ? " admin" : " console")),
    nav,
    h("div", { class: "row" }, themeButton(),
      signedIn ? button("Sign out", () => { leave(); showSignIn("Signed out."); }, { "data-test": "signout" }) : null));
}

function showView(): void {
  if (!credential()) {
    showSignIn();
    return;
  }
  const name = location.hash.slice(1);
  const entry = views.find((v) => v.name === name) ?? views[0];
  current?.stop?.();
  current = entry.make();
  replace(app, header(true), h("main", { id: "main", tabindex: -1 }, current.element));
  document.title = `${entry.title} · eventsvc`;
}

// Forgets the credential and what it read, and stops the view (a live tail holds a stream open).
function leave(): void {
  current?.stop?.();
  current = null;
  signOut();
  forgetFields();
}

whenRefused((message) => {
  if (checking) return;
  leave();
  showSignIn(message);
});
window.addEventListener("hashchange", () => {
  if (location.hash !== "#main") showView();
});
showView();
