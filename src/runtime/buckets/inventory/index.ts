// The inventory page: public surface (re-exported by @svc-dev/svc/runtime through ../index.ts).
export { handleInventory, INVENTORY_PAGE_SIZE, INVENTORY_LINK_TTL_MS, type InventoryRequest } from './handle-inventory.js';
export { INVENTORY_CSP } from './render-inventory.js';
