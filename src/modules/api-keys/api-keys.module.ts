// API keys with scopes; the secret is shown once.
import type { Module, Shared } from '../module.ts';
import { registerApiKeysRoutes } from './api-keys.routes.ts';
import { createApiKeysService } from './api-keys.service.ts';

export function apiKeysModule({ db, audit, now }: Shared): Module {
  const apiKeys = createApiKeysService({ db, audit, now });
  return { name: 'api-keys', routes: (api) => registerApiKeysRoutes(api, { apiKeys }) };
}
