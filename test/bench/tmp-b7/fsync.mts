import { open, unlink } from 'node:fs/promises';
const MiB = 1024 * 1024;
const buf = Buffer.alloc(MiB, 5);
async function run(name: string, prealloc: boolean) {
  const path = `/tmp/fsync-probe-${name}.bin`;
  const h = await open(path, 'w');
  if (prealloc) await h.truncate(512 * MiB);
  const t = performance.now();
  let pos = 0;
  for (let c = 0; c < 64; c++) { for (let i = 0; i < 8; i++) { await h.write(buf, 0, MiB, pos); pos += MiB; } await h.datasync(); }
  await h.close(); await unlink(path);
  return (performance.now() - t) / 1000;
}
for (let i = 0; i < 4; i++) console.log('append', (await run('a', false)).toFixed(2), 'presized', (await run('b', true)).toFixed(2));
