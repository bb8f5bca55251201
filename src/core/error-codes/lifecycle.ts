import { defineCodes } from './define.js';

/** Project deletion and release cleanup (src/projects/delete-project*, src/releases/delete-release.ts). */
export const lifecycleCodes = defineCodes({
  SVC_SITE_DELETE_CONFIRMATION_MISMATCH: {
    status: 400,
    retryable: false,
    summary: 'Project deletion needs the exact phrase `delete-site <project-slug>`.',
    hint: 'Retype the phrase shown in the message.',
  },
  SVC_DATA_LOSS_NOT_ACKNOWLEDGED: {
    status: 400,
    retryable: false,
    summary:
      'Project deletion permanently removes the database, releases, snapshots, backups, secrets, logs, metrics, domains and scoped tokens; it needs the data-loss acknowledgement.',
    hint: 'Pass --acknowledge-data-loss (API: "acknowledgeDataLoss": true).',
  },
  SVC_SITE_PATH_UNSAFE: {
    status: 500,
    retryable: false,
    summary:
      'The project directory or one of its parents is not a real directory (for example a symbolic link); nothing was removed and the previous release was restarted.',
    hint: 'Inspect the data directory; the operator must repair it before the site can be deleted.',
  },
  SVC_SITE_DELETE_FILES_FAILED: {
    status: 500,
    retryable: true,
    summary: 'Removing the project files failed part-way; the project metadata remains and the previous release was restarted if its files were intact.',
    hint: 'Fix the filesystem problem and run the same delete again; it continues where it stopped.',
  },
  SVC_SITE_DELETE_INCOMPLETE: {
    status: 500,
    retryable: true,
    summary: 'The site files were removed, but the control-database cleanup did not finish.',
    hint: 'Retry the same delete request; it completes the cleanup.',
  },
});
