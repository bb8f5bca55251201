// Runs once before the suite: fixtures that are generated, not checked in (hostile artifacts, some
// large; the runtime demo's browser bundle of the client).
import { generateDemoClient } from '../../fixtures/generate-demo-client.js';
import { generateHostileFixtures } from '../../fixtures/generate-hostile.js';

/** Generate the fixtures that are missing or stale. */
export default async function setup(): Promise<void> {
  await generateHostileFixtures();
  await generateDemoClient();
}
