import { useQuery } from '@tanstack/react-query';
import { api, call } from '../api/client.ts';

export function useConnections(projectId: string) {
  return useQuery({
    queryKey: ['connections', projectId],
    queryFn: () =>
      call(api.GET('/api/v1/connections', { params: { query: { project_id: projectId, page_size: 200 } } })),
  });
}

/** A connection's schema as it is now, for picking tables and columns ('': none chosen yet). */
export function useLiveSchema(connectionId: string) {
  return useQuery({
    queryKey: ['schema', connectionId],
    // Live: a table created a moment ago must be pickable at once.
    staleTime: 0,
    queryFn: () =>
      call(api.GET('/api/v1/connections/{id}/schema', { params: { path: { id: connectionId } } })),
    enabled: connectionId !== '',
  });
}
