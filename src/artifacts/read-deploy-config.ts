import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { SvcError } from '../core/errors.js';
import { parseDeployConfig, type DeployConfig } from './deploy-config.js';

/** File name of the deployment configuration in an app directory. */
const DEPLOY_CONFIG_FILE = 'svc.deploy.json';
// A configuration file is small; a huge one is a mistake (or an attack on the parser).
const maxConfigBytes = 1024 * 1024;

/** Read and validate `<appDir>/svc.deploy.json` (SVC_CONFIG_NOT_FOUND, SVC_CONFIG_INVALID_JSON, SVC_CONFIG_*). */
export async function readDeployConfig(appDir: string): Promise<DeployConfig> {
  const file = join(appDir, DEPLOY_CONFIG_FILE);
  let text: string;
  try {
    const bytes = await readFile(file);
    if (bytes.length > maxConfigBytes) throw new SvcError('SVC_CONFIG_FIELD_INVALID', `${file} is larger than ${maxConfigBytes} bytes`);
    text = bytes.toString('utf8');
  } catch (error) {
    if (error instanceof SvcError) throw error;
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'ENOENT' || code === 'ENOTDIR') throw new SvcError('SVC_CONFIG_NOT_FOUND', `No ${DEPLOY_CONFIG_FILE} in ${appDir}`, { cause: error });
    throw new SvcError('SVC_IO', `Could not read ${file}: ${(error as Error).message}`, { cause: error });
  }
  let raw: unknown;
  try {
    raw = JSON.parse(text.charCodeAt(0) === 0xfeff ? text.slice(1) : text);
  } catch (error) {
    throw new SvcError('SVC_CONFIG_INVALID_JSON', `${file} is not valid JSON: ${(error as Error).message}`, { cause: error });
  }
  return parseDeployConfig(raw);
}
