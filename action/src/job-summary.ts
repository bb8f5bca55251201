// The job summary the Action writes (Markdown). Pure.

/** What the summary reports. */
export interface SummaryFacts {
  status: string;
  project: string;
  releaseId: string | null;
  url: string | null;
  sha: string;
  repository: string | null;
  digest: string | null;
  fileCount: number | null;
  artifactBytes: number | null;
  auth: 'oidc' | 'token';
  attempts: number | null;
  created: boolean | null;
  /** A failure or refusal: stable code and message. */
  problem: { code: string; message: string } | null;
}

const ICONS: Record<string, string> = { active: '✅', superseded: '⏭️', inactive: 'ℹ️', failed: '❌', error: '❌' };

/** Render the summary as a heading and a two-column table. */
export function renderJobSummary(facts: SummaryFacts): string {
  const rows: [string, string][] = [
    ['Status', `${ICONS[facts.status] ?? ''} ${facts.status}`.trim()],
    ['Project', code(facts.project)],
  ];
  if (facts.releaseId) rows.push(['Release', `${code(facts.releaseId)}${facts.created === false ? ' (already uploaded; same idempotency key)' : ''}`]);
  if (facts.url) rows.push(['URL', facts.url]);
  rows.push(['Commit', `${code(facts.sha)}${facts.repository ? ` in ${escapeCell(facts.repository)}` : ''}`]);
  if (facts.digest) rows.push(['Artifact', `${code(facts.digest.slice(0, 16))}… (${facts.fileCount ?? '?'} files, ${facts.artifactBytes ?? '?'} bytes)`]);
  rows.push(['Authentication', facts.auth === 'oidc' ? 'GitHub Actions OIDC' : 'project token']);
  if (facts.attempts !== null) rows.push(['Upload attempts', String(facts.attempts)]);
  if (facts.problem) rows.push(['Reason', `${code(facts.problem.code)} ${escapeCell(facts.problem.message)}`]);
  const table = rows.map(([name, value]) => `| ${name} | ${value} |`).join('\n');
  return `### svc deploy: ${facts.status}\n\n| | |\n| --- | --- |\n${table}\n`;
}

function code(text: string): string {
  return `\`${text.replace(/`/g, "'")}\``;
}

function escapeCell(text: string): string {
  return text.replace(/\|/g, '\\|').replace(/\r?\n/g, ' ');
}
