// The load generator as its own process, so the test's event loop (uploads, polling) never delays
// requests or their timing: config as JSON in argv[2]; "stop" on stdin ends it and the report is
// printed as one JSON line on stdout.
import { startLoad, type LoadConfig } from './load-traffic.js';

const load = startLoad(JSON.parse(process.argv[2]!) as LoadConfig);
process.stdout.write('started\n');
process.stdin.setEncoding('utf8');
process.stdin.on('data', (chunk: string) => {
  if (!chunk.includes('stop')) return;
  void load.stop().then((report) => {
    process.stdout.write(`${JSON.stringify(report)}\n`);
    process.exit(0);
  });
});
