import { useQuery } from '@tanstack/react-query';
import { api, call } from '../api/client.ts';

export function useConnections(projectId: string) {
  return useQuery({
    queryKey: ['connections', projectId],
    queryFn: () =>
      call(api.GET('/api/v1/connections', { params: { query: { project_id: projectId, page_size: 200 } } })),
  });
}
