// docker-compose.yml and the Dockerfile cannot run here (no Docker engine), so their content is
// checked against the code: every variable they set is one the service reads, every file they
// run exists in the build output, and the health check asks the readiness route.
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { load } from 'js-yaml';
import { CONFIG_VARIABLES } from '@nudge/server';

const root = fileURLToPath(new URL('../../../', import.meta.url));

interface ComposeService {
  build?: string;
  command?: string[];
  environment?: Record<string, string>;
  healthcheck?: { test: string[] };
  restart?: string;
  depends_on?: Record<string, { condition: string }>;
}

const compose = load(readFileSync(`${root}docker-compose.yml`, 'utf8')) as {
  services: Record<string, ComposeService>;
};
const dockerfile = readFileSync(`${root}Dockerfile`, 'utf8');
/** Variables the demo producer reads (see apps/demo/src/producer-options.ts). */
const PRODUCER_VARIABLES = ['DATABASE_URL', 'NUDGE_URL', 'NUDGE_DEMO_DATASET', 'NUDGE_DEMO_OUTPUT_DIR'];

describe('deployment files', () => {
  const instances = Object.entries(compose.services).filter(([, s]) => s.healthcheck !== undefined);

  it('runs PostgreSQL, two nudge instances with a restart policy and health checks, and the demo producer', () => {
    assert.ok(compose.services.postgres, 'a postgres service');
    assert.equal(instances.filter(([name]) => name.startsWith('nudge')).length, 2);
    for (const [name, service] of instances.filter(([n]) => n.startsWith('nudge'))) {
      assert.equal(service.restart, 'unless-stopped', `${name} restarts`);
      assert.match(service.healthcheck?.test.join(' ') ?? '', /\/readyz/, `${name} checks readiness`);
      assert.equal(service.depends_on?.postgres?.condition, 'service_healthy');
    }
    assert.deepEqual(compose.services.producer?.command, ['node', 'apps/demo/dist/producer.js']);
  });

  it('sets only variables the code reads, and points at files the build produces', () => {
    for (const [name, service] of Object.entries(compose.services)) {
      if (name === 'postgres') continue;
      const known = name === 'producer' ? PRODUCER_VARIABLES : CONFIG_VARIABLES;
      for (const variable of Object.keys(service.environment ?? {})) {
        assert.ok(known.includes(variable), `${name} sets ${variable}, which nothing reads`);
      }
      const handlers = service.environment?.NUDGE_HANDLERS;
      if (handlers) assert.ok(existsSync(handlers.replace(/^\/app\//, root)), `${handlers} is built`);
      const script = service.command?.[1];
      if (script) assert.ok(existsSync(`${root}${script}`), `${script} is built`);
    }
    const cmd = /^CMD \["node", "([^"]+)"\]$/m.exec(dockerfile)?.[1];
    assert.ok(cmd && existsSync(`${root}${cmd}`), `the image's command ${String(cmd)} is built`);
  });
});
