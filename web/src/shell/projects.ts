import { useQuery } from '@tanstack/react-query';
import { api, call } from '../api/client.ts';

/** The organization's projects with their badge counts, refreshed so the badges follow what others do. */
export function useProjects(enabled = true) {
  return useQuery({
    queryKey: ['projects'],
    queryFn: () => call(api.GET('/api/v1/projects', { params: { query: { page_size: 100 } } })),
    refetchInterval: 15_000,
    enabled,
  });
}
