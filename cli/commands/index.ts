// Every `svc` command, in one list: the names it registers and how to load its module. A run loads
// only the module of the command it names (see cli/command-name.ts), so start-up does not pay for
// every command's imports. To add a command: export a CommandModule from its own file in this
// folder and add one entry here.
import type { CommandModule } from '../command-module.js';

/** One command module: the top-level names its register() adds, and its lazy import. */
export interface CommandEntry {
  readonly names: readonly string[];
  load(): Promise<CommandModule>;
}

/** The registered commands; help lists them sorted by name. */
export const commandEntries: readonly CommandEntry[] = [
  { names: ['create'], load: async () => (await import('./create.js')).createCommand },
  { names: ['build'], load: async () => (await import('./build.js')).buildCommand },
  { names: ['doctor'], load: async () => (await import('./doctor.js')).doctorCommand },
  { names: ['deploy'], load: async () => (await import('./deploy.js')).deployCommand },
  { names: ['inspect'], load: async () => (await import('./inspect.js')).inspectCommand },
  { names: ['login'], load: async () => (await import('./login.js')).loginCommand },
  { names: ['logout'], load: async () => (await import('./logout.js')).logoutCommand },
  { names: ['register'], load: async () => (await import('./register.js')).registerCommand },
  { names: ['projects'], load: async () => (await import('./projects.js')).projectsCommand },
  { names: ['tokens'], load: async () => (await import('./tokens.js')).tokensCommand },
  { names: ['activity'], load: async () => (await import('./activity.js')).activityCommand },
  { names: ['releases'], load: async () => (await import('./releases.js')).releasesCommand },
  { names: ['rollback'], load: async () => (await import('./rollback.js')).rollbackCommand },
  { names: ['logs'], load: async () => (await import('./logs.js')).logsCommand },
  { names: ['secrets'], load: async () => (await import('./secrets.js')).secretsCommand },
  { names: ['project'], load: async () => (await import('./project.js')).projectCommand },
  { names: ['backups'], load: async () => (await import('./backups.js')).backupsCommand },
  { names: ['domains'], load: async () => (await import('./domains.js')).domainsCommand },
  { names: ['recovery'], load: async () => (await import('./recovery.js')).recoveryCommand },
  { names: ['link'], load: async () => (await import('./link.js')).linkCommand },
  { names: ['unlink'], load: async () => (await import('./unlink.js')).unlinkCommand },
  { names: ['canary'], load: async () => (await import('./canary.js')).canaryCommand },
  { names: ['nodes'], load: async () => (await import('./nodes.js')).nodesCommand },
  { names: ['place'], load: async () => (await import('./place.js')).placeCommand },
  { names: ['generations', 'stop'], load: async () => (await import('./generations.js')).generationsCommand },
  { names: ['whoami'], load: async () => (await import('./whoami.js')).whoamiCommand },
  { names: ['open'], load: async () => (await import('./open.js')).openCommand },
  { names: ['usage'], load: async () => (await import('./usage.js')).usageCommand },
  { names: ['previews'], load: async () => (await import('./previews.js')).previewsCommand },
];

/**
 * The modules a run needs: none for a bare `--version`, only the named command's when it is one of
 * ours, and every one otherwise (help, `svc help …`, no command, an unknown name to suggest against).
 */
export async function loadCommands(wanted: { name: string | undefined; versionOnly: boolean }): Promise<CommandModule[]> {
  if (wanted.versionOnly) return [];
  const named = wanted.name === undefined ? undefined : commandEntries.find((entry) => entry.names.includes(wanted.name as string));
  return Promise.all((named ? [named] : commandEntries).map((entry) => entry.load()));
}
