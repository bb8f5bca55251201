// The console root: load the session once, then render the page matching the location.
import { useEffect, useState } from 'preact/hooks';
import { loadSession } from './api/client.js';
import { Layout } from './components/layout.js';
import { RequireAuth } from './components/require-auth.js';
import { ErrorBox, Loading } from './components/status.js';
import { NotFoundPage } from './pages/not-found.js';
import { matchRoute, useLocation } from './router.js';
import { routes } from './routes.js';

/** The whole console. */
export function App() {
  const { path } = useLocation();
  const [boot, setBoot] = useState<{ done: boolean; error?: Error }>({ done: false });

  useEffect(() => {
    loadSession().then(
      () => setBoot({ done: true }),
      (error: Error) => setBoot({ done: true, error }),
    );
  }, []);

  let page = <NotFoundPage />;
  for (const route of routes) {
    const params = matchRoute(route.pattern, path);
    if (params) {
      page = route.auth ? <RequireAuth>{route.render(params)}</RequireAuth> : <>{route.render(params)}</>;
      break;
    }
  }
  return <Layout>{!boot.done ? <Loading /> : boot.error ? <ErrorBox error={boot.error} retry={() => window.location.reload()} /> : page}</Layout>;
}
