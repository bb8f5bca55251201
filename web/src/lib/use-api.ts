// Load one control-plane resource for a component: data, error, loading, and reload().
// A changed path aborts the previous request; a reload keeps showing the old data meanwhile.
import { useCallback, useEffect, useRef, useState } from 'preact/hooks';
import type { z } from 'zod';
import { ApiError, api, withQuery } from '../api/client.js';

export interface ApiState<T> {
  data: T | undefined;
  error: ApiError | undefined;
  loading: boolean;
  reload(): void;
}

/** GET `path` (null: nothing to load yet) and re-fetch whenever path or query change. */
export function useApi<T>(path: string | null, schema?: z.ZodType<T>, query?: Record<string, string | number | boolean | undefined>): ApiState<T> {
  const key = path === null ? null : withQuery(path, query);
  const [state, setState] = useState<{ data: T | undefined; error: ApiError | undefined; loading: boolean }>({
    data: undefined,
    error: undefined,
    loading: key !== null,
  });
  const [tick, setTick] = useState(0);
  const lastKey = useRef(key);

  useEffect(() => {
    if (key === null) return;
    const controller = new AbortController();
    const sameResource = lastKey.current === key;
    lastKey.current = key;
    setState((s) => ({ data: sameResource ? s.data : undefined, error: undefined, loading: true }));
    api<T>('GET', key, { signal: controller.signal, ...(schema ? { schema } : {}) }).then(
      (data) => !controller.signal.aborted && setState({ data, error: undefined, loading: false }),
      (error: unknown) => {
        if (controller.signal.aborted) return;
        const apiError = error instanceof ApiError ? error : new ApiError(0, 'SVC_CONSOLE_ERROR', String((error as Error)?.message ?? error));
        setState((s) => ({ data: s.data, error: apiError, loading: false }));
      },
    );
    return () => controller.abort();
    // schema is a module constant at every call site, so the key alone decides reloading.
  }, [key, tick]);

  const reload = useCallback(() => setTick((t) => t + 1), []);
  return { ...state, reload };
}
