import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import SwaggerParser from '@apidevtools/swagger-parser';
import type { OpenAPIV3 } from 'openapi-types';
import { DIALECTS } from '@nudge/test-databases';
import { createTestApp, jsonBody, type TestApp } from './test-app.js';

const KEY = 'reader-key-0123456789abcd';

/** `/jobs/:id` as OpenAPI writes it: `/jobs/{id}`. */
const openApiPath = (url: string) => url.replace(/:([A-Za-z0-9_]+)/g, '{$1}');

for (const dialect of DIALECTS) {
  describe(`OpenAPI document: ${dialect}`, () => {
    let t: TestApp;
    let doc: OpenAPIV3.Document;
    before(async () => {
      t = await createTestApp(dialect, { apiKeys: [{ key: KEY, scopes: ['read'] }] });
      const response = await t.app.inject({
        method: 'GET',
        url: '/docs/json',
        headers: { authorization: `Bearer ${KEY}` },
      });
      assert.equal(response.statusCode, 200);
      doc = jsonBody(response) as unknown as OpenAPIV3.Document;
    });
    after(() => t.close());

    it('is a valid OpenAPI 3 document', async () => {
      assert.equal(doc.openapi, '3.0.3');
      // validate() dereferences in place: give it a copy.
      await SwaggerParser.validate(structuredClone(doc) as never);
    });

    it('describes every route the app registered, except the documentation UI of its own', () => {
      const documented = new Set(
        Object.entries(doc.paths).flatMap(([path, item]) =>
          Object.keys(item ?? {}).map((method) => `${method.toUpperCase()} ${path}`),
        ),
      );
      const visible = t.routes.filter((route) => !route.hidden);
      assert.ok(visible.length >= 13, `only ${visible.length} routes`);
      for (const route of visible) {
        assert.ok(
          documented.has(`${route.method} ${openApiPath(route.url)}`),
          `${route.method} ${route.url} is missing from /docs/json`,
        );
      }
      assert.equal(documented.size, visible.length, 'nothing documented that is not a route');
      assert.ok(t.routes.some((route) => route.hidden && route.url.startsWith('/docs')));
    });

    it('takes each route schema from its TypeBox schema, and declares the bearer key', () => {
      const create = doc.paths['/jobs']?.post;
      const body = create?.requestBody as OpenAPIV3.RequestBodyObject | undefined;
      const schema = body?.content['application/json']?.schema as OpenAPIV3.SchemaObject | undefined;
      assert.deepEqual(schema?.required, ['kind']);
      assert.ok(schema?.properties?.priority, 'the body of POST /jobs lists priority');
      assert.ok(create?.responses['201'], 'POST /jobs documents its 201');
      assert.deepEqual(doc.security, [{ apiKey: [] }]);
      assert.deepEqual(doc.components?.securitySchemes?.apiKey, {
        type: 'http',
        scheme: 'bearer',
        description: 'A key configured in apiKeys.',
      });
    });

    it('serves the UI at /docs', async () => {
      const page = await t.app.inject({
        method: 'GET',
        url: '/docs',
        headers: { authorization: `Bearer ${KEY}` },
      });
      assert.equal(page.statusCode, 200);
      assert.match(page.body, /swagger-ui/);
    });
  });
}
