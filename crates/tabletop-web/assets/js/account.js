// The optional account on the start page (docs/API.md, "Accounts"): log in, sign up, log out.
// The login is an HttpOnly cookie: this script never sees it, and asks the server who it is.
import { api } from "./api.js";

const $ = (id) => document.getElementById(id);

function show(account) {
  // The name links to the player's page (js/player.js).
  if (account) {
    $("account-who").replaceChildren("Logged in as ",
      Object.assign(document.createElement("a"), { href: `/player/${encodeURIComponent(account.name)}`, textContent: account.name, id: "account-page" }), ".");
  } else {
    $("account-who").textContent = "Not logged in.";
  }
  $("account-form").hidden = !!account;
  $("account-out").hidden = !account;
  document.dispatchEvent(new CustomEvent("tabletop:account", { detail: account || null }));
}

async function whoAmI() {
  try {
    show(await api("GET", "/api/account"));
  } catch {
    show(null);
  }
}

if ($("account")) {
  $("account-form").addEventListener("submit", async (event) => {
    event.preventDefault();
    const signUp = event.submitter?.id === "account-signup";
    const body = { name: $("account-name").value, password: $("account-password").value };
    $("account-error").textContent = "";
    try {
      show(await api("POST", signUp ? "/api/account/signup" : "/api/account/login", body));
      $("account-password").value = "";
    } catch (error) {
      $("account-error").textContent = error.message;
    }
  });
  // A new account's password is a new one (password managers offer to make one).
  $("account-signup").addEventListener("pointerdown", () => $("account-password").setAttribute("autocomplete", "new-password"));
  $("account-login").addEventListener("pointerdown", () => $("account-password").setAttribute("autocomplete", "current-password"));
  $("account-logout").addEventListener("click", async () => {
    try {
      await api("POST", "/api/account/logout", {});
    } catch {
      // Whatever the answer, ask the server who this browser is now.
    }
    await whoAmI();
  });
  whoAmI();
}
