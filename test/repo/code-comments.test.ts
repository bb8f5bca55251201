// Names and comments say what a thing does and why. Two habits this keeps out of the tree:
// `svc:<feature>` tags marking which feature a line exists for, and references to spec sections or
// issue numbers, which a reader of the repository cannot follow. Text files only; built output,
// dependencies and binary fixtures are skipped.
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { extname, join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const root = fileURLToPath(new URL('../..', import.meta.url));
const self = relative(root, fileURLToPath(import.meta.url));

/** Folders holding code, tests and their READMEs; docs/ and the root README are prose a user reads. */
const codeFolders = ['src', 'runner', 'cli', 'action/src', 'web', 'test', 'fixtures', 'scripts', 'bin'];
const proseFiles = ['docs', 'README.md'];
const skipped = new Set(['node_modules', 'dist', '.git', 'test-results', 'coverage']);
const textExtensions = new Set(['.ts', '.tsx', '.js', '.mjs', '.cjs', '.md', '.json', '.yml', '.yaml', '.sh', '.css', '.html']);

/** Every text file under `path` (a file or a folder), relative to the repository root. */
function textFiles(path: string): string[] {
  const full = join(root, path);
  if (!statSync(full, { throwIfNoEntry: false })) return [];
  if (statSync(full).isFile()) return [path];
  return readdirSync(full, { withFileTypes: true }).flatMap((entry) => {
    if (skipped.has(entry.name)) return [];
    const child = join(path, entry.name);
    if (entry.isDirectory()) return textFiles(child);
    return entry.isFile() && textExtensions.has(extname(entry.name)) && statSync(join(root, child)).size < 2_000_000 ? [child] : [];
  });
}

/**
 * A `svc:<feature>` tag: in a comment line, a Markdown file, or in the tag's own shape (`svc:name —`,
 * as in a schema description). Strings that merely contain `svc:` elsewhere are data and pass.
 */
function featureTags(text: string, markdown: boolean): string[] {
  return text.split('\n').filter((line) => {
    if (!/\bsvc:[a-z]/.test(line)) return false;
    if (markdown || /\bsvc:[a-z][a-z-]* —/.test(line)) return true;
    return /(\/\/|\/\*|^\s*\*).*\bsvc:[a-z]/.test(line);
  });
}

/** A reference to a spec section ("spec 002 rule 4") or an issue ("issue 12", "later issues"). */
function trackerReferences(text: string): string[] {
  return text.split('\n').filter((line) => /\bspec 0\d\d\b|\bissues? #?\d+\b|\blater issues?\b|\bmust-show\b/i.test(line));
}

function offenders(files: string[], find: (text: string, path: string) => string[]): string[] {
  return files.filter((path) => path !== self).flatMap((path) => find(readFileSync(join(root, path), 'utf8'), path).map((line) => `${path}: ${line.trim()}`));
}

describe('the code says what it is', () => {
  it('finds tags and references in the shapes they take, and leaves data alone', () => {
    expect(featureTags('  // svc:nodes — a runner node runs it', false)).toHaveLength(1);
    expect(featureTags('foo(); // svc:canary', false)).toHaveLength(1);
    expect(featureTags('  /** svc:github — the check run. */', false)).toHaveLength(1);
    expect(featureTags(' * placed projects (svc:nodes), or', false)).toHaveLength(1);
    expect(featureTags("  x: z.string().describe('svc:github — full commit SHA'),", false)).toHaveLength(1);
    expect(featureTags('- `node-canaries.ts` — svc:canary: the candidates', true)).toHaveLength(1);
    expect(featureTags("const kind = 'svc:restore';", false)).toEqual([]);
    expect(trackerReferences('// One writer (spec 002 rule 2): the previous app stops')).toHaveLength(1);
    expect(trackerReferences('// Must-show (issue 4): the real control plane')).toHaveLength(1);
    expect(trackerReferences('/** Canary split (issue 12 sets it). */')).toHaveLength(1);
    expect(trackerReferences('Later issues add their kinds here.')).toHaveLength(1);
    expect(trackerReferences("it('ignores a comment on an issue that is not a pull request')")).toEqual([]);
    expect(trackerReferences('issue.path.join(".")')).toEqual([]);
  });

  it('has no svc:<feature> tags in code, tests or their READMEs', () => {
    const files = codeFolders.flatMap(textFiles);
    expect(files.length).toBeGreaterThan(500);
    expect(offenders(files, (text, path) => featureTags(text, path.endsWith('.md')))).toEqual([]);
  });

  it('has no spec section or issue numbers in code, tests, READMEs or docs', () => {
    const files = [...codeFolders, ...proseFiles].flatMap(textFiles);
    expect(offenders(files, (text) => trackerReferences(text))).toEqual([]);
  });
});
