// Upload an artifact as a project's next release over svc's HTTP API with a bearer token, as the CLI
// and the Action do. The raw answer comes back, so a test can check refusals as well as releases.
import type { Artifact } from '../releases/release-support.js';

export interface PostReleaseOptions {
  /** The idempotency key of the upload. */
  key: string;
  /** Sent as `?wait=`; absent leaves the server's default. */
  wait?: boolean;
  /** More request headers (a canary request, …). */
  headers?: Record<string, string>;
}

export function postRelease(url: string, accessToken: string, projectId: string, artifact: Artifact, options: PostReleaseOptions): Promise<Response> {
  const query = options.wait === undefined ? '' : `?wait=${options.wait}`;
  return fetch(`${url}/api/projects/${projectId}/releases${query}`, {
    method: 'POST',
    headers: {
      authorization: `Bearer ${accessToken}`,
      'content-type': 'application/vnd.svc.deploy+gzip',
      'x-svc-artifact-digest': artifact.digest,
      'idempotency-key': options.key,
      ...options.headers,
    },
    body: new Uint8Array(artifact.bytes),
  });
}
