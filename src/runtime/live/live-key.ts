/** The subscription key: function path + canonical JSON arguments + identity partition. */
export function liveKey(path: string, canonicalArgs: string, partition: string): string {
  return `${path}\u0000${canonicalArgs}\u0000${partition}`;
}
