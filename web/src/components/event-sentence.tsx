// Renders the parts of an event sentence (web/src/lib/event-sentences.ts): text, links and identifiers.
import type { SentencePart } from '../lib/event-sentences.js';
import { Link } from '../router.js';

export function EventSentence({ parts }: { parts: readonly SentencePart[] }) {
  return (
    <>
      {parts.map((part, i) => {
        if (typeof part === 'string') return part;
        if ('text' in part)
          return (
            <Link key={i} href={part.href}>
              {part.text}
            </Link>
          );
        return part.href ? (
          <Link key={i} href={part.href}>
            <code>{part.code}</code>
          </Link>
        ) : (
          <code key={i}>{part.code}</code>
        );
      })}
    </>
  );
}
