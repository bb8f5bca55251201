// Every `svc` command, in one list. To add a command: export a CommandModule from its own
// file in this folder and add it to this array (one import line, one entry).
import type { CommandModule } from '../command-module.js';
import { buildCommand } from './build.js';
import { createCommand } from './create.js';
import { deployCommand } from './deploy.js';
import { doctorCommand } from './doctor.js';
import { inspectCommand } from './inspect.js';
import { loginCommand } from './login.js';
import { logoutCommand } from './logout.js';
import { projectsCommand } from './projects.js';
import { tokensCommand } from './tokens.js';
import { activityCommand } from './activity.js';
import { releasesCommand } from './releases.js';
import { rollbackCommand } from './rollback.js';
import { logsCommand } from './logs.js';
import { linkCommand } from './link.js';
import { unlinkCommand } from './unlink.js';
import { secretsCommand } from './secrets.js';
import { projectCommand } from './project.js';
import { backupsCommand } from './backups.js';
import { domainsCommand } from './domains.js';
import { recoveryCommand } from './recovery.js';
import { canaryCommand } from './canary.js';
import { nodesCommand } from './nodes.js';
import { placeCommand } from './place.js';
import { generationsCommand } from './generations.js';

/** The registered commands; help lists them sorted by name. */
export const commands: CommandModule[] = [
  createCommand,
  buildCommand,
  doctorCommand,
  deployCommand,
  inspectCommand,
  loginCommand,
  logoutCommand,
  projectsCommand,
  tokensCommand,
  activityCommand,
  releasesCommand,
  rollbackCommand,
  logsCommand,
  secretsCommand,
  projectCommand,
  backupsCommand,
  domainsCommand,
  recoveryCommand,
  linkCommand,
  unlinkCommand,
  canaryCommand,
  nodesCommand,
  placeCommand,
  generationsCommand,
];
