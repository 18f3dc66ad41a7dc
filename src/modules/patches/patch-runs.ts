// The run handlers of patches (docs/contract.md §9) for the job worker: `patch_execute` (patch-execute.ts) and
// `patch_rollback` (patch-rollback.ts).
import type { RunHandlers } from '../runs/run-handler.ts';
import { createPatchExecute } from './patch-execute.ts';
import { createPatchRollback } from './patch-rollback.ts';
import type { PatchRunDeps } from './patch-run-deps.ts';

export function createPatchRunHandlers(
  deps: PatchRunDeps,
): Required<Pick<RunHandlers, 'patch_execute' | 'patch_rollback'>> {
  return { patch_execute: createPatchExecute(deps), patch_rollback: createPatchRollback(deps) };
}
