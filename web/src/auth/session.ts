import { useQuery } from '@tanstack/react-query';
import { ApiError, api, call } from '../api/client.ts';
import type { User } from '../api/types.ts';

/** The signed-in user; `null` when there is no session (401). */
export function useMe() {
  return useQuery({
    queryKey: ['me'],
    queryFn: async (): Promise<User | null> => {
      try {
        return await call(api.GET('/api/v1/auth/me'));
      } catch (error) {
        if (error instanceof ApiError && error.status === 401) return null;
        throw error;
      }
    },
    staleTime: 60_000,
  });
}

/** Where to go after signing in: the page the user asked for, only if it is a path of this app. */
export function safeNext(next: string | null): string {
  return next?.startsWith('/') && !next.startsWith('//') ? next : '/';
}
