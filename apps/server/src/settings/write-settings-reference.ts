import { mkdirSync, writeFileSync } from 'node:fs';
import { dirname } from 'node:path';
import { fileURLToPath } from 'node:url';
import { SETTINGS_REFERENCE_PATH, settingsReference } from './settings-reference.js';

// Writes docs/reference/settings.md from the settings tables: `pnpm docs:settings`.

const path = fileURLToPath(new URL(`../../../../${SETTINGS_REFERENCE_PATH}`, import.meta.url));
mkdirSync(dirname(path), { recursive: true });
writeFileSync(path, settingsReference());
process.stdout.write(`wrote ${SETTINGS_REFERENCE_PATH}\n`);
