// Render an ApiState: loading, error (or not-available), or the data through `children`.
import type { ComponentChildren } from 'preact';
import type { ApiState } from '../lib/use-api.js';
import { ErrorBox, Loading } from './status.js';

/** Loading / error / data switch for one useApi() result; `feature` enables the not-available state. */
export function AsyncView<T>({ state, feature, children }: { state: ApiState<T>; feature?: string; children: (data: T) => ComponentChildren }) {
  if (state.data !== undefined) {
    return (
      <>
        {state.error ? <ErrorBox error={state.error} retry={state.reload} {...(feature ? { feature } : {})} /> : null}
        {children(state.data)}
      </>
    );
  }
  if (state.error) return <ErrorBox error={state.error} retry={state.reload} {...(feature ? { feature } : {})} />;
  return <Loading />;
}
