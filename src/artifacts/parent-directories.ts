// The folders a set of relative file paths needs, parents before children. Pure.

/** Every folder above the given `a/b/c` paths, ordered so a non-recursive mkdir in order creates each once. */
export function parentDirectories(paths: Iterable<string>): string[] {
  const directories = new Set<string>();
  for (const path of paths) {
    for (let slash = path.indexOf('/'); slash >= 0; slash = path.indexOf('/', slash + 1)) directories.add(path.slice(0, slash));
  }
  return [...directories].sort((a, b) => a.split('/').length - b.split('/').length);
}
