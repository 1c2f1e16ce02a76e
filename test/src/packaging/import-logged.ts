// `node import-logged.js LOG_FILE SPECIFIER`: imports SPECIFIER (resolved from the test package,
// as a module of it would) with every resolution of the import appended to LOG_FILE.
import { register } from 'node:module';

const [logFile, specifier] = process.argv.slice(2);
if (!logFile || !specifier) throw new Error('usage: import-logged.js LOG_FILE SPECIFIER');
register('./resolution-log-hooks.js', import.meta.url, { data: { logFile } });
await import(specifier);
