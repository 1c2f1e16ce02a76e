import { createRequire } from 'node:module';
import { dirname } from 'node:path';
import { fileURLToPath } from 'node:url';
import fastifyStatic from '@fastify/static';
import type { FastifyPluginAsync } from 'fastify';

/** The folder of the page's own files (`index.html`, `dashboard.js`, `dashboard.css`). */
export const DASHBOARD_PUBLIC_DIR = fileURLToPath(new URL('../public/', import.meta.url));

/** Files of uPlot (the chart library) the page loads, served from its npm package. */
const VENDOR_FILES = new Set(['uPlot.iife.min.js', 'uPlot.min.css']);

/**
 * Serves the dashboard: `GET /dashboard/` (the page and its files) and `/dashboard/vendor/`
 * (uPlot). The page reads the JSON API of the same service with the API key the operator types
 * in (kept in the browser's local storage), so it needs no route of its own and no build step.
 */
export const dashboardPlugin: FastifyPluginAsync = async (app) => {
  const require = createRequire(import.meta.url);
  const uplotDir = dirname(require.resolve('uplot/dist/uPlot.iife.min.js'));
  await app.register(fastifyStatic, {
    root: DASHBOARD_PUBLIC_DIR,
    prefix: '/dashboard/',
    decorateReply: false,
    index: ['index.html'],
  });
  await app.register(fastifyStatic, {
    root: uplotDir,
    prefix: '/dashboard/vendor/',
    decorateReply: false,
    allowedPath: (path) => VENDOR_FILES.has(path.replace(/^\//, '')),
  });
  app.get('/dashboard', async (_request, reply) => reply.redirect('/dashboard/'));
};
