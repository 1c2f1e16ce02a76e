import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { loadMigrationFiles } from './migration-files.js';

describe('migration files', () => {
  it('both dialects list the same migrations under the same numbers', () => {
    const names = (dialect: 'postgres' | 'sqlite') => loadMigrationFiles(dialect).map((f) => f.name);
    assert.deepEqual(
      names('sqlite'),
      names('postgres'),
      'add a migration to both folders under one name (an empty file, with a comment saying why, where a dialect has nothing to do)',
    );
  });
});
