// A page whose code is fetched the first time it is shown: pages outside the first load (sign-in,
// dashboard, project overview) stay out of the entry script. Loading state meanwhile; a failed fetch
// (e.g. a new deploy of the console replaced the chunk) offers a reload.
import type { ComponentType } from 'preact';
import { useEffect, useState } from 'preact/hooks';
import { ErrorBox, Loading } from './components/status.js';

/** `load` resolves to the page component; it runs once per page load, shared by every render. */
export function lazyPage<P extends object>(load: () => Promise<ComponentType<P>>): ComponentType<P> {
  let component: ComponentType<P> | null = null;
  let pending: Promise<ComponentType<P>> | null = null;
  return function LazyPage(props: P) {
    const [, setLoaded] = useState(0);
    const [error, setError] = useState<Error | null>(null);
    useEffect(() => {
      if (component) return;
      let live = true;
      pending ??= load();
      pending.then(
        (loaded) => {
          component = loaded;
          if (live) setLoaded((n) => n + 1);
        },
        (failure: Error) => {
          pending = null;
          if (live) setError(failure);
        },
      );
      return () => void (live = false);
    }, []);
    if (component) {
      const Page = component;
      return <Page {...props} />;
    }
    if (error) return <ErrorBox error={error} retry={() => window.location.reload()} />;
    return <Loading />;
  };
}
