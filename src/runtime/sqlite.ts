// Apps import better-sqlite3 through svc (`@svc-dev/svc/sqlite`) so they use the same native build as the runtime.
export { default } from 'better-sqlite3';
