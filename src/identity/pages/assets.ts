// The only script the server-rendered pages run (CSP forbids inline code). It submits forms
// marked data-api as JSON with the CSRF header, then shows the result or follows data-next.
import { CSRF_HEADER } from '../contract.js';

export const pagesScript = `'use strict';
(function () {
  var meta = document.querySelector('meta[name="svc-csrf"]');
  var csrf = meta ? meta.getAttribute('content') : null;
  var error = document.getElementById('error');
  var result = document.getElementById('result');
  document.querySelectorAll('form[data-api]').forEach(function (form) {
    form.addEventListener('submit', function (event) {
      event.preventDefault();
      error.textContent = '';
      var body = {};
      new FormData(form).forEach(function (value, key) { if (value !== '') body[key] = value; });
      var headers = { 'content-type': 'application/json', accept: 'application/json' };
      if (csrf) headers[${JSON.stringify(CSRF_HEADER)}] = csrf;
      var buttons = document.querySelectorAll('button');
      buttons.forEach(function (b) { b.disabled = true; });
      fetch(form.getAttribute('data-api'), { method: 'POST', headers: headers, body: JSON.stringify(body), credentials: 'same-origin' })
        .then(function (res) { return res.json().catch(function () { return {}; }).then(function (json) { return { ok: res.ok, status: res.status, json: json }; }); })
        .then(function (r) {
          if (!r.ok) {
            var e = r.json && r.json.error ? r.json.error : { code: 'HTTP_' + r.status, message: 'Request failed' };
            error.textContent = e.message + ' (' + e.code + ')';
            buttons.forEach(function (b) { b.disabled = false; });
            return;
          }
          var done = form.getAttribute('data-done');
          if (done) {
            result.textContent = done;
            document.querySelectorAll('[data-hide-on-done]').forEach(function (el) { el.hidden = true; });
          }
          var next = form.getAttribute('data-next');
          if (next) window.location.assign(next);
        })
        .catch(function () {
          error.textContent = 'Network error; try again.';
          buttons.forEach(function (b) { b.disabled = false; });
        });
    });
  });
})();
`;
