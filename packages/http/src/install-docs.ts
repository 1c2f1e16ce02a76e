import swagger from '@fastify/swagger';
import swaggerUi from '@fastify/swagger-ui';
import type { NudgeHttpApp } from './nudge-http-app.js';

/** Where the API's documentation is served: the UI at `/docs`, the OpenAPI JSON at `/docs/json`. */
export const DOCS_PREFIX = '/docs';

/**
 * Describes every route from its TypeBox schema in an OpenAPI 3 document (`@fastify/swagger`,
 * collected as routes are added: register before the routes) and serves it with Swagger UI
 * (`@fastify/swagger-ui`): the page at `/docs`, the JSON at `/docs/json`, the YAML at
 * `/docs/yaml`. The page's own routes are hidden from the document. The page loads every script
 * from a file of its own (no inline script), so helmet's Content-Security-Policy
 * (`script-src 'self'`) applies to it unchanged.
 *
 * @param keysName - what the bearer scheme's description calls the list of keys (`apiKeys`, or
 *   the setting the caller filled it from)
 */
export function installDocs(app: NudgeHttpApp, version: string, keysName = 'apiKeys'): void {
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
          apiKey: { type: 'http', scheme: 'bearer', description: `A key configured in ${keysName}.` },
        },
      },
      security: [{ apiKey: [] }],
    },
  });
  void app.register(swaggerUi, { routePrefix: DOCS_PREFIX });
}
