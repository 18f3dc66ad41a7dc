import { useQuery } from '@tanstack/react-query';
import { ApiError, api, call } from '../api/client.ts';
import type { User } from '../api/types.ts';
import { readCookie } from '../lib/cookies.ts';

/** Set with the session at sign-in and readable by scripts (it is echoed as the CSRF header). */
const CSRF_COOKIE = 'csrf_token';

/**
 * The signed-in user; `null` when there is no session. Without the CSRF cookie there is none, so the
 * app does not ask (a 401 is a console error in every browser, on every visit of the sign-in page).
 * A session that ended meanwhile answers 401 once: its stale cookie is then dropped.
 */
export function useMe() {
  return useQuery({
    queryKey: ['me'],
    queryFn: async (): Promise<User | null> => {
      if (!readCookie(document.cookie, CSRF_COOKIE)) return null;
      try {
        return await call(api.GET('/api/v1/auth/me'));
      } catch (error) {
        if (error instanceof ApiError && error.status === 401) {
          // biome-ignore lint/suspicious/noDocumentCookie: a fixed name with no value, in every browser (the Cookie Store API is not in all of them)
          document.cookie = `${CSRF_COOKIE}=; Max-Age=0; Path=/`;
          return null;
        }
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
