// Drift's domain events (docs/contract.md §11.1): a new report (`drift.detected`, besides the alert e-mail and
// the sidebar badge, which stay the alert) and its acknowledgement. `data` is the report as
// `GET /drifts/{id}` answers it, read in the change's transaction.
import type { Db } from '../../store/db.ts';
import type { EventSource } from '../events/events.service.ts';
import { findReportById } from './drift.repo.ts';
import { toDriftReportResponse } from './drift.schemas.ts';

async function reportData(db: Db, id: string) {
  const report = await findReportById(db, id);
  return report && toDriftReportResponse(report);
}

export const DRIFT_EVENT_SOURCES: EventSource[] = [
  { action: 'drift.detected', type: 'drift.detected', data: reportData },
  { action: 'drift.acknowledge', type: 'drift.acknowledged', data: reportData },
];
