// Reading and cancelling runs (the executor that works them is wired by src/jobs/).
import type { Module, Shared } from '../module.ts';
import { registerRunsRoutes } from './runs.routes.ts';

export function runsModule({ runs }: Shared): Module {
  return { name: 'runs', routes: (api) => registerRunsRoutes(api, { runs }) };
}
