import type { FastifyRequest } from 'fastify';
import type { Enqueuer } from '@nudge/core';
import { allows } from './api-keys.js';

/**
 * The enqueuer of a request ({@link installAuth} identified its key): the key's id, and whether it
 * is an admin key (which may replace another key's debounced job); `undefined` when the API has
 * no keys.
 */
export function enqueuerOf(request: FastifyRequest): Enqueuer | undefined {
  const key = request.apiKey;
  return key === null ? undefined : { keyId: key.id, replacesOthers: key.scopes.includes('admin') };
}

/** Whether the caller may read jobs: the API has no keys, or the key has `read` (or `admin`). */
export function mayRead(request: FastifyRequest): boolean {
  return request.apiKey === null || allows(request.apiKey.scopes, 'read');
}
