import { relative, resolve } from 'node:path';
import { PACKAGE_NAME } from '../../src/core/package-name.js';
import type { CommandModule } from '../command-module.js';
import { createApp } from '../create-app.js';
import { svcInvocation } from '../svc-invocation.js';

/** `svc create <name>`: a working starter app with svc.deploy.json, a health route and a migration. */
export const createCommand: CommandModule = {
  register(program, ctx) {
    program
      .command('create')
      .description('create a starter app: node:http server, /healthz, one SQL migration, svc.deploy.json')
      .argument('<name>', 'directory to create (its base name becomes the app name)')
      .action(async (name: string) => {
        const app = await createApp(resolve(ctx.cwd, name));
        const rel = relative(ctx.cwd, app.path);
        const shown = rel === '' ? '.' : rel.startsWith('..') ? app.path : rel;
        const svc = svcInvocation(ctx.env.PATH);
        ctx.out.result(app, () => [
          `${ctx.out.paint('green')('✓')} Created ${app.name} in ${app.path}`,
          ...app.files.map((file) => `  ${file}`),
          '',
          'Next:',
          `  cd ${shown}`,
          `  ${svc} doctor            # check the app`,
          `  ${svc} deploy --dry-run  # build and pack an artifact offline`,
          ...(svc === 'svc' ? [] : ['', `(or put svc on PATH: npm install -g ${PACKAGE_NAME})`]),
        ]);
      });
  },
};
