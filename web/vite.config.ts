// The web application's build: React through Vite, assets with content hashes under /assets/ so the
// service can cache them for a year (src/web/serve-web-app.ts). The dev server proxies the API to a
// service started with `npm start` on port 8000.
import react from '@vitejs/plugin-react';
import { defineConfig } from 'vite';

const service = process.env.DBOPS_URL ?? 'http://127.0.0.1:8000';

export default defineConfig({
  plugins: [react()],
  build: { outDir: 'dist', emptyOutDir: true, sourcemap: false, chunkSizeWarningLimit: 1500 },
  server: {
    proxy: Object.fromEntries(
      ['/api', '/docs', '/openapi.json', '/healthz', '/readyz', '/web-config.json'].map((p) => [p, service]),
    ),
  },
});
