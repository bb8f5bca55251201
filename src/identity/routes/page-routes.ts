import type { FastifyReply } from 'fastify';
import { z } from 'zod';
import type { FeatureContext } from '../../core/feature-context.js';
import type { HttpApp } from '../../core/http/create-http-app.js';
import { SvcError } from '../../core/errors.js';
import type { AccountService } from '../account-service.js';
import { authenticate } from '../authenticate.js';
import { identityRoutes as r } from '../contract.js';
import type { DeviceService } from '../device-service.js';
import { pagesScript } from '../pages/assets.js';
import { pagesStyle } from '../pages/pages-style.js';
import { PAGE_CSP, PAGE_SCRIPT_PATH, PAGE_STYLE_PATH, escapeHtml as e, renderPage, safeNext } from '../pages/html.js';
import type { Principal } from '../principal.js';

const tags = ['pages'];
const html = { 200: z.string().describe('text/html') };

function sendPage(reply: FastifyReply, page: string, status = 200) {
  return reply
    .status(status)
    .header('content-type', 'text/html; charset=utf-8')
    .header('content-security-policy', PAGE_CSP)
    .header('x-frame-options', 'DENY')
    .send(page);
}

const credentialFields = (withName: boolean) => `
<div class="field"><label for="email">Email</label><input id="email" name="email" type="email" autocomplete="username" required></div>
<div class="field"><label for="password">Password</label><input id="password" name="password" type="password" autocomplete="${withName ? 'new-password' : 'current-password'}" minlength="${withName ? 10 : 1}" required></div>
${withName ? '<div class="field"><label for="name">Name (optional)</label><input id="name" name="name" autocomplete="name"></div>' : ''}`;

/** The server-rendered pages (`/login`, `/register`, `/device`): what `svc login` links to and the no-JavaScript fallback, styled like the console. */
export function pageRoutes(ctx: FeatureContext, accounts: AccountService, devices: DeviceService) {
  const session = (request: Parameters<typeof authenticate>[1]): Principal | null => {
    try {
      return authenticate(ctx, request, { token: false });
    } catch (error) {
      if (error instanceof SvcError && error.status === 401) return null;
      throw error;
    }
  };

  return async function register(app: HttpApp): Promise<void> {
    app.get(PAGE_SCRIPT_PATH, { schema: { tags, summary: 'Script of the server-rendered pages', response: { 200: z.string() } } }, async (_request, reply) =>
      reply.header('content-type', 'text/javascript; charset=utf-8').send(pagesScript),
    );
    app.get(PAGE_STYLE_PATH, { schema: { tags, summary: 'Stylesheet of the server-rendered pages', response: { 200: z.string() } } }, async (_request, reply) =>
      reply.header('content-type', 'text/css; charset=utf-8').send(pagesStyle),
    );

    app.get(
      r.pageLogin,
      { schema: { tags, summary: 'Sign-in page', querystring: z.object({ next: z.string().max(2000).optional() }), response: html } },
      async (request, reply) => {
        const next = safeNext(request.query.next);
        const body = `<form id="login-form" class="stack" data-api="${r.login}" data-next="${e(next)}" data-hide-on-done>${credentialFields(false)}
<button id="submit" type="submit">Sign in</button></form>
<p><a href="${r.pageRegister}?next=${e(encodeURIComponent(next))}">Create an account</a></p>`;
        return sendPage(reply, renderPage('Sign in', body));
      },
    );

    app.get(
      r.pageRegister,
      {
        schema: {
          tags,
          summary: 'Registration page (first account, public mode, or invitation)',
          querystring: z.object({ next: z.string().max(2000).optional(), invitation: z.string().max(200).optional() }),
          response: html,
        },
      },
      async (request, reply) => {
        const next = safeNext(request.query.next);
        const invitation = request.query.invitation;
        if (!invitation && !accounts.registrationOpen()) {
          return sendPage(
            reply,
            renderPage(
              'Registration closed',
              `<p>Self-registration is closed on this platform. Ask an administrator for an invitation, or <a href="${r.pageLogin}">sign in</a>.</p>`,
            ),
            403,
          );
        }
        const api = invitation ? r.invitedRegister : r.register;
        const hidden = invitation ? `<input type="hidden" name="invitation" value="${e(invitation)}">` : '';
        const body = `<form id="register-form" class="stack" data-api="${api}" data-next="${e(next)}" data-hide-on-done>${hidden}${credentialFields(true)}
<button id="submit" type="submit">Create account</button></form>`;
        return sendPage(reply, renderPage(invitation ? 'Accept invitation' : 'Create the first account', body));
      },
    );

    app.get(
      r.pageDevice,
      {
        schema: {
          tags,
          summary: 'Review and approve or deny a device login',
          querystring: z.object({ code: z.string().max(20).optional() }),
          response: { 200: z.string(), 302: z.string() },
        },
      },
      async (request, reply) => {
        const principal = session(request);
        if (!principal || principal.kind !== 'session') {
          const back = `${r.pageDevice}${request.query.code ? `?code=${encodeURIComponent(request.query.code)}` : ''}`;
          return reply.redirect(`${r.pageLogin}?next=${encodeURIComponent(back)}`, 302);
        }
        const enterForm = `<form id="code-form" class="stack" method="get" action="${r.pageDevice}"><div class="field"><label for="code">Code shown in your terminal</label>
<input id="code" name="code" autocomplete="off" placeholder="XXXX-XXXX" required></div><button id="continue" type="submit">Continue</button></form>`;
        const signedIn = `<p class="muted">Signed in as ${e(principal.user.email)}.</p>`;
        if (!request.query.code) return sendPage(reply, renderPage('Device login', signedIn + enterForm, principal.csrfToken));
        let info;
        try {
          info = devices.review(principal, request.ip, request.query.code);
        } catch (error) {
          if (!(error instanceof SvcError) || error.status >= 500) throw error;
          return sendPage(
            reply,
            renderPage(
              'Device login',
              `${signedIn}<p class="problem" data-code="${e(error.code)}">${e(error.message)} (${e(error.code)})</p>${enterForm}`,
              principal.csrfToken,
            ),
            error.status,
          );
        }
        const details = `${signedIn}<div class="card"><p class="muted">Code to compare with your terminal</p>
<p><span id="user-code" class="usercode">${e(info.userCode)}</span></p>
<dl class="facts"><dt>Client</dt><dd><strong id="client-name">${e(info.clientName)}</strong></dd></dl>
<p>Only continue if this code matches the one in your terminal.</p>`;
        if (info.status !== 'pending') {
          return sendPage(reply, renderPage('Device login', `${details}<p id="status">This request is ${e(info.status)}.</p></div>`, principal.csrfToken));
        }
        const decision = (name: 'approve' | 'deny', label: string, done: string) =>
          `<form id="${name}-form" data-api="${name === 'approve' ? r.deviceApprove : r.deviceDeny}" data-done="${e(done)}" data-hide-on-done>
<input type="hidden" name="userCode" value="${e(info.userCode)}"><button id="${name}" type="submit"${name === 'deny' ? ' class="danger"' : ''}>${label}</button></form>`;
        const buttons = `<div class="actions">${decision('approve', 'Approve', 'Approved. You can return to your terminal.')}${decision('deny', 'Deny', 'Denied. No token was issued.')}</div></div>`;
        return sendPage(reply, renderPage('Device login', details + buttons, principal.csrfToken));
      },
    );
  };
}
