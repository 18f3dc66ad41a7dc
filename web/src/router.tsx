import { lazy } from 'react';
import { createBrowserRouter } from 'react-router';
import { LoginPage } from './auth/LoginPage.tsx';
import { SignupPage } from './auth/SignupPage.tsx';
import { TwoFactorPage } from './auth/TwoFactorPage.tsx';
import { AccessRequestsPage } from './pages/AccessRequestsPage.tsx';
import { AnonymizePage } from './pages/AnonymizePage.tsx';
import { ApiKeysPage } from './pages/ApiKeysPage.tsx';
import { ApprovalsPage } from './pages/ApprovalsPage.tsx';
import { AuditPage } from './pages/AuditPage.tsx';
import { BridgePage } from './pages/BridgePage.tsx';
import { ConnectionsPage } from './pages/ConnectionsPage.tsx';
import { DriftPage } from './pages/DriftPage.tsx';
import { HomePage } from './pages/HomePage.tsx';
import { MembersPage } from './pages/MembersPage.tsx';
import { MigrationsPage } from './pages/MigrationsPage.tsx';
import { NotFoundPage } from './pages/NotFoundPage.tsx';
import { OrganizationPage } from './pages/OrganizationPage.tsx';
import { PolicyPage } from './pages/PolicyPage.tsx';
import { ProfilePage } from './pages/ProfilePage.tsx';
import { RunPage } from './pages/RunPage.tsx';
import { RunsPage } from './pages/RunsPage.tsx';
import { SeedsPage } from './pages/SeedsPage.tsx';
import { WebhooksPage } from './pages/WebhooksPage.tsx';
import { Layout } from './shell/Layout.tsx';

// The pages with the SQL editor load CodeMirror on first use, not with the sign-in page.
const MigrationPage = lazy(() =>
  import('./pages/MigrationPage.tsx').then((m) => ({ default: m.MigrationPage })),
);
const PatchesPage = lazy(() => import('./pages/PatchesPage.tsx').then((m) => ({ default: m.PatchesPage })));
const PatchPage = lazy(() => import('./pages/PatchPage.tsx').then((m) => ({ default: m.PatchPage })));

export const router = createBrowserRouter([
  { path: '/login', element: <LoginPage /> },
  { path: '/login/2fa', element: <TwoFactorPage /> },
  { path: '/signup', element: <SignupPage /> },
  {
    element: <Layout />,
    children: [
      { path: '/', element: <HomePage /> },
      { path: '/profile', element: <ProfilePage /> },
      { path: '/api-keys', element: <ApiKeysPage /> },
      { path: '/audit', element: <AuditPage /> },
      { path: '/organization', element: <OrganizationPage /> },
      { path: '/runs/:runId', element: <RunPage /> },
      { path: '/projects/:pid/connections', element: <ConnectionsPage /> },
      { path: '/projects/:pid/drift', element: <DriftPage /> },
      { path: '/projects/:pid/migrations', element: <MigrationsPage /> },
      { path: '/projects/:pid/migrations/:id', element: <MigrationPage /> },
      { path: '/projects/:pid/patches', element: <PatchesPage /> },
      { path: '/projects/:pid/patches/:id', element: <PatchPage /> },
      { path: '/projects/:pid/approvals', element: <ApprovalsPage /> },
      { path: '/projects/:pid/runs', element: <RunsPage /> },
      { path: '/projects/:pid/access-requests', element: <AccessRequestsPage /> },
      { path: '/projects/:pid/webhooks', element: <WebhooksPage /> },
      { path: '/projects/:pid/bridge', element: <BridgePage /> },
      { path: '/projects/:pid/policy', element: <PolicyPage /> },
      { path: '/projects/:pid/members', element: <MembersPage /> },
      { path: '/projects/:pid/anonymize', element: <AnonymizePage /> },
      { path: '/projects/:pid/seeds', element: <SeedsPage /> },
      { path: '/projects/:pid/runs/:runId', element: <RunPage /> },
      { path: '*', element: <NotFoundPage /> },
    ],
  },
]);
