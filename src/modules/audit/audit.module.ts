// Reading the audit trail (every service writes it through the shared audit service).
import type { Module, Shared } from '../module.ts';
import { registerAuditRoutes } from './audit.routes.ts';

export function auditModule({ audit }: Shared): Module {
  return { name: 'audit', routes: (api) => registerAuditRoutes(api, { audit }) };
}
