// A labelled input; the id doubles as the stable hook for tests and automation.
import type { JSX } from 'preact';

type InputProps = JSX.InputHTMLAttributes<HTMLInputElement> & { id: string; label: string; hint?: string };

/** <label> + <input> (+ hint text linked with aria-describedby). */
export function Field({ id, label, hint, ...input }: InputProps) {
  return (
    <div class="field">
      <label for={id}>{label}</label>
      <input id={id} name={id} {...(hint ? { 'aria-describedby': `${id}-hint` } : {})} {...input} />
      {hint ? (
        <p class="hint" id={`${id}-hint`}>
          {hint}
        </p>
      ) : null}
    </div>
  );
}

/** The value of an input event's target. */
export function inputValue(event: Event): string {
  return (event.target as HTMLInputElement).value;
}
