import swagger from '@fastify/swagger';
import swaggerUi from '@fastify/swagger-ui';
import type { NudgeHttpApp } from './nudge-http-app.js';

/** Where the API's documentation is served: the UI at `/docs`, the OpenAPI JSON at `/docs/json`. */
export const DOCS_PREFIX = '/docs';

/**
 * Describes every route from its TypeBox schema in an OpenAPI 3 document (`@fastify/swagger`,
 * collected as routes are added: register before the routes) and serves it with Swagger UI
 * (`@fastify/swagger-ui`): the page at `/docs`, the JSON at `/docs/json`, the YAML at
 * `/docs/yaml`. The page's own routes are hidden from the document. Swagger UI sets a
 * Content-Security-Policy of its own on its pages, with the hashes of its inline script and style
 * (`staticCSP`), replacing the stricter default of `@fastify/helmet`, which would block them.
 */
export function installDocs(app: NudgeHttpApp, version: string): void {
  void app.register(swagger, {
    openapi: {
      openapi: '3.0.3',
      info: {
        title: 'nudge',
        description:
          'A background job service. Every route except GET /healthz and GET /readyz needs an API key with a scope when keys are configured (docs/security.md).',
        version,
      },
      components: {
        securitySchemes: {
          apiKey: { type: 'http', scheme: 'bearer', description: 'A key of NUDGE_API_KEYS.' },
        },
      },
      security: [{ apiKey: [] }],
    },
  });
  void app.register(swaggerUi, {
    routePrefix: DOCS_PREFIX,
    staticCSP: true,
    // Served over plain HTTP too: do not make the browser upgrade the page's requests to HTTPS.
    transformStaticCSP: (header) => header.replace(/\s*upgrade-insecure-requests;?/, ''),
  });
}
