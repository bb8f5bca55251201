// A GitHub App's credentials for tests: an RSA key pair (the private key as the PKCS#1 PEM GitHub
// hands out), an app id and a webhook secret, plus the env svc reads them from.
import { generateKeyPairSync, type KeyObject } from 'node:crypto';

export interface AppCredentials {
  appId: number;
  privateKeyPem: string;
  publicKey: KeyObject;
  webhookSecret: string;
}

/** Fresh credentials (2048-bit RSA, like GitHub's). */
export function appCredentials(appId = 4242): AppCredentials {
  const { privateKey, publicKey } = generateKeyPairSync('rsa', { modulusLength: 2048 });
  return { appId, privateKeyPem: privateKey.export({ type: 'pkcs1', format: 'pem' }).toString(), publicKey, webhookSecret: `whsec-${appId}-test` };
}

/** The environment of a control plane using these credentials against `apiOrigin` (http://127.0.0.1:<port>). */
export function githubEnv(creds: AppCredentials, apiOrigin: string, extra: Record<string, string> = {}): Record<string, string> {
  const host = new URL(apiOrigin).host;
  return {
    APP_ID: String(creds.appId),
    PRIVATE_KEY: creds.privateKeyPem,
    WEBHOOK_SECRET: creds.webhookSecret,
    GHE_HOST: host,
    GHE_PROTOCOL: 'http',
    SVC_GITHUB_THROTTLE: 'false',
    ...extra,
  };
}
