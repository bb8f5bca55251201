// The stylesheet of the server-rendered /login, /register and /device pages (served as a file:
// the CSP allows no inline style). It looks like the console: the same colour and spacing tokens
// as web/src/styles.css (test/identity/page-style.test.ts fails when a value here differs from
// the console's), the same top bar, card, form and button shapes, and the device code in large type.

export const pagesStyle = `:root {
  --bg: #f7f8fa;
  --panel: #ffffff;
  --text: #14171c;
  --muted: #545b69;
  --border: #d9dde3;
  --control-border: #7d8491;
  --accent: #2457c5;
  --accent-text: #ffffff;
  --danger: #b3261e;
  --danger-text: #ffffff;
  --ok: #1d7a46;
  --focus: #174ea6;
  --code-bg: #eef0f4;
  --space-1: 0.25rem;
  --space-2: 0.5rem;
  --space-3: 0.75rem;
  --space-4: 1rem;
  --space-5: 1.5rem;
  --radius: 8px;
  --control-height: 2.25rem;
  color-scheme: light dark;
}
@media (prefers-color-scheme: dark) {
  :root {
    --bg: #111318;
    --panel: #1a1d24;
    --text: #e7e9ee;
    --muted: #a7aebb;
    --border: #3a404c;
    --control-border: #6f7787;
    --accent: #7aa5ff;
    --accent-text: #0b0d12;
    --danger: #ff8a80;
    --danger-text: #0b0d12;
    --ok: #5fd08f;
    --focus: #ffbf47;
    --code-bg: #252a36;
  }
}
* { box-sizing: border-box; }
body {
  margin: 0;
  background: var(--bg);
  color: var(--text);
  font: 15px/1.5 system-ui, -apple-system, 'Segoe UI', Roboto, sans-serif;
  overflow-wrap: break-word;
}
a { color: var(--accent); }
:focus-visible { outline: 3px solid var(--focus); outline-offset: 2px; }
.topbar {
  display: flex;
  align-items: center;
  padding: var(--space-2) var(--space-4);
  background: var(--panel);
  border-bottom: 1px solid var(--border);
}
.brand { font-weight: 700; font-size: 1.2rem; text-decoration: none; color: var(--text); }
main { max-width: 30rem; margin: var(--space-5) auto; padding: 0 var(--space-4); }
h1 { font-size: 1.6rem; line-height: 1.25; margin: var(--space-1) 0 var(--space-3); }
p { margin: 0 0 var(--space-3); }
.card {
  background: var(--panel);
  border: 1px solid var(--border);
  border-radius: var(--radius);
  padding: var(--space-4);
  margin-bottom: var(--space-4);
}
.card > :last-child { margin-bottom: 0; }
.muted { color: var(--muted); }
.stack { display: flex; flex-direction: column; gap: var(--space-3); }
.stack > button { align-self: flex-start; }
.field { display: flex; flex-direction: column; gap: var(--space-1); }
.field label { font-weight: 600; font-size: 0.9rem; }
input {
  font: inherit;
  color: var(--text);
  background: var(--panel);
  border: 1px solid var(--control-border);
  border-radius: 7px;
  padding: 0.45rem 0.6rem;
  width: 100%;
  min-height: var(--control-height);
}
button {
  font: inherit;
  font-weight: 600;
  padding: 0.45rem 0.95rem;
  border-radius: 7px;
  border: 1px solid var(--accent);
  background: var(--accent);
  color: var(--accent-text);
  cursor: pointer;
  min-height: var(--control-height);
}
button.danger { background: var(--danger); border-color: var(--danger); color: var(--danger-text); }
button:disabled { opacity: 0.55; cursor: not-allowed; }
.actions { display: flex; flex-wrap: wrap; gap: var(--space-2) var(--space-3); }
.actions form { margin: 0; }
.facts { display: grid; grid-template-columns: max-content minmax(0, 1fr); gap: var(--space-1) var(--space-4); margin: 0 0 var(--space-3); }
.facts dt { color: var(--muted); }
.facts dd { margin: 0; overflow-wrap: anywhere; }
.usercode {
  display: inline-block;
  font-family: ui-monospace, SFMono-Regular, Menlo, Consolas, monospace;
  font-size: 2.25rem;
  font-weight: 700;
  line-height: 1.2;
  letter-spacing: 0.12em;
  padding: var(--space-2) var(--space-4);
  border: 2px dashed var(--border);
  border-radius: var(--radius);
  background: var(--code-bg);
  overflow-wrap: anywhere;
}
.problem {
  border: 1px solid var(--danger);
  color: var(--danger);
  border-radius: var(--radius);
  padding: var(--space-2) var(--space-3);
}
#error { color: var(--danger); margin: 0; }
#result { color: var(--ok); font-weight: 600; margin: 0; }
@media (max-width: 480px) {
  main { margin-top: var(--space-4); padding: 0 var(--space-3); }
  h1 { font-size: 1.35rem; }
  .usercode { font-size: 1.75rem; }
}
`;
