// The test command's entry (`pnpm test`, `test:all`, `test:repeat`, `test:chaos`); the runner is
// compiled from test/src/runner/, so `tsc -b` runs first. `--help`-like usage: test/src/runner/main.ts.
await import('./dist/runner/main.js');
