import { open, unlink } from 'node:fs/promises';
const MiB = 1024 * 1024;
const buf = Buffer.alloc(MiB, 5);
async function run(name: string, chunkMiB: number, prealloc: boolean, bg: boolean) {
  const path = `/tmp/fsync-probe-${name}.bin`;
  const h = await open(path, 'w');
  if (prealloc) { await h.truncate(512 * MiB); }
  const t = performance.now();
  let pos = 0; let syncT = 0;
  for (let c = 0; c < 512 / chunkMiB; c++) {
    let flushing: Promise<void> | null = null;
    for (let i = 0; i < chunkMiB; i++) { await h.write(buf, 0, MiB, pos); pos += MiB; if (bg && i % 4 === 3 && !flushing) flushing = h.datasync(); }
    if (flushing) await flushing;
    const s = performance.now(); await h.datasync(); syncT += performance.now() - s;
  }
  await h.close(); await unlink(path);
  console.log(name.padEnd(20), ((performance.now() - t) / 1000).toFixed(2), 's, final-sync total', (syncT / 1000).toFixed(2));
}
await run('one-sync', 512, false, false);
await run('8M-chunks', 8, false, false);
await run('8M-bg', 8, false, true);
await run('8M-prealloc', 8, true, false);
await run('one-sync2', 512, false, false);
