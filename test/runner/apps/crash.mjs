// Test app: prints a line on each stream and exits with status 1 before listening.
console.log('booting');
console.error('fatal: cannot boot');
process.exit(1);
