// The restore preview lives beside the releases contract (src/releases/restore-preview.ts) so the
// console's rollback dialog shows the same lines; the rollback command imports it through here.
export { previewNeedsPlacement, restorePreview, type PreviewPlacement } from '../src/releases/contract.js';
