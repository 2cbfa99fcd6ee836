import type { DemoUser } from "./users.ts";

const escape = (text: string): string => text.replace(/[&<>"']/g, (c) => ({ "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "'": "&#39;" })[c] ?? c);

/** A plain form: no script, no external asset, readable by a screen reader and by a test. */
export function loginPage(options: { action: string; users: readonly DemoUser[]; password: string; error?: string }): string {
  const rows = options.users
    .map(
      (u) =>
        `<tr><td><code>${escape(u.username)}</code></td><td>${escape(u.email)}</td><td>${u.email_verified ? "yes" : "no"}</td><td>${escape(u.hd ?? "-")}</td></tr>`,
    )
    .join("");
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>Local OpenID provider: sign in</title>
<style>body{font:16px system-ui,sans-serif;max-width:40rem;margin:2rem auto;padding:0 1rem}label{display:block;margin:.5rem 0}table{border-collapse:collapse;margin-top:1.5rem}td,th{border:1px solid #ccc;padding:.25rem .5rem;text-align:left}.error{color:#b00020}</style>
</head><body>
<h1>Local OpenID provider</h1>
<p>Development only (<code>npm start</code>). Sign in as one of the demo users; every password is <code>${escape(options.password)}</code>.</p>
${options.error ? `<p class="error" role="alert">${escape(options.error)}</p>` : ""}
<form method="post" action="${escape(options.action)}">
<label>Username <input name="username" autocomplete="username" required autofocus></label>
<label>Password <input name="password" type="password" autocomplete="current-password" required></label>
<button type="submit">Sign in</button>
</form>
<table><thead><tr><th>username</th><th>email</th><th>email_verified</th><th>hd</th></tr></thead><tbody>${rows}</tbody></table>
</body></html>
`;
}
