// The web application's entry: server state in TanStack Query, pages in React Router.
import { QueryClient, QueryClientProvider } from '@tanstack/react-query';
import { StrictMode } from 'react';
import { createRoot } from 'react-dom/client';
import { RouterProvider } from 'react-router';
import { ApiError } from './api/client.ts';
import { retriesAgain } from './lib/retry.ts';
import { router } from './router.tsx';
import './styles.css';

const queryClient = new QueryClient({
  defaultOptions: {
    queries: {
      retry: (failures, error) => retriesAgain(failures, error instanceof ApiError ? error : {}),
      // A failed query is not asked again because its page is opened again: the error stays, with
      // its Retry button (each ask of a failing target is one more failed login there).
      retryOnMount: false,
      refetchOnWindowFocus: false,
      staleTime: 2_000,
    },
  },
});

createRoot(document.getElementById('root')!).render(
  <StrictMode>
    <QueryClientProvider client={queryClient}>
      <RouterProvider router={router} />
    </QueryClientProvider>
  </StrictMode>,
);
