// What the operator and `svc doctor` see about app isolation. Its own module because the driver
// interface (release-driver.ts) reports it and the sandbox runner produces it; the interface
// imports no driver.

/** What the operator and `svc doctor` see about app isolation. */
export interface SandboxStatus {
  available: boolean;
  network: 'isolated' | 'shared';
  perProjectUid: boolean;
  problem: { code: string; message: string } | null;
}
