// Runs inside a container and reports the platform paths it was given and whether it can use them:
// a bucket object and catalog under SVC_BUCKET_DIR, a file in the recovery repository, the database
// directory.
import { createServer } from 'node:http';
import { mkdirSync, readdirSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';

function attempt(fn) {
  try {
    fn();
    return 'ok';
  } catch (error) {
    return error.code ?? String(error);
  }
}
const env = process.env;
const report = {
  env: {
    SVC_DATA_DIR: env.SVC_DATA_DIR,
    SVC_DATABASE_PATH: env.SVC_DATABASE_PATH,
    SVC_BUCKET_DIR: env.SVC_BUCKET_DIR,
    SVC_BUCKET_CATALOG: env.SVC_BUCKET_CATALOG,
    SVC_BUCKET_PREFIX: env.SVC_BUCKET_PREFIX,
    SVC_RECOVERY_DIR: env.SVC_RECOVERY_DIR,
    SVC_RECOVERY_KEY: env.SVC_RECOVERY_KEY,
  },
  writeBucket: attempt(() => {
    mkdirSync(join(env.SVC_BUCKET_DIR, 'objects'), { recursive: true });
    writeFileSync(join(env.SVC_BUCKET_DIR, 'objects', 'hello.txt'), 'bucket object');
    writeFileSync(env.SVC_BUCKET_CATALOG, 'catalog');
  }),
  writeRecovery: attempt(() => writeFileSync(join(env.SVC_RECOVERY_DIR, 'segment-1'), 'journal')),
  recoveryListing: (() => {
    try {
      return readdirSync(env.SVC_RECOVERY_DIR).sort();
    } catch (error) {
      return error.code;
    }
  })(),
  writeDatabaseDir: attempt(() => {
    mkdirSync(dirname(env.SVC_DATABASE_PATH), { recursive: true });
    writeFileSync(env.SVC_DATABASE_PATH, 'db');
  }),
};
createServer((req, res) => {
  res.setHeader('content-type', 'application/json');
  res.end(JSON.stringify(report));
}).listen(Number(process.env.PORT), process.env.HOST);
process.on('SIGTERM', () => process.exit(0));
