// Public surface of the GitHub integration for the composition root.
export { createGithub, type GithubFeature, type GithubOptions, type GithubReleases } from './github-feature.js';
export { githubMigrations } from './migrations.js';
