// A time in words relative to now ("3 minutes ago"), with the exact time in its title and datetime.
import { formatRelative, formatTime } from '../lib/format.js';

export function RelativeTime({ iso, id }: { iso: string | null | undefined; id?: string }) {
  if (!iso) return <span>—</span>;
  return (
    <time dateTime={iso} title={formatTime(iso)} {...(id ? { id } : {})}>
      {formatRelative(iso)}
    </time>
  );
}
