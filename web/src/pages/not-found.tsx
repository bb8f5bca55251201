// Unknown console path.
import { useTitle } from '../components/layout.js';
import { Link } from '../router.js';

/** Fallback page for paths the console does not know. */
export function NotFoundPage() {
  useTitle('Not found');
  return (
    <div class="narrow">
      <h1>Page not found</h1>
      <p>
        There is nothing at this address. <Link href="/">Go to your projects</Link>.
      </p>
    </div>
  );
}
