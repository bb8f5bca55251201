// The email and password inputs of the sign-in and registration forms (ids #email and #password,
// as on the server-rendered pages); a new password gets the minimum length and its hint.
import { Field, inputValue } from './form-field.js';

export interface CredentialFieldsProps {
  email: string;
  password: string;
  onEmail(value: string): void;
  onPassword(value: string): void;
  /** Registration: the browser offers to generate one, and at least 10 characters are asked for. */
  newPassword?: boolean;
}

/** Email + password fields, controlled by the form that holds them. */
export function CredentialFields({ email, password, onEmail, onPassword, newPassword = false }: CredentialFieldsProps) {
  return (
    <>
      <Field id="email" label="Email" type="email" autoComplete="username" required value={email} onInput={(e) => onEmail(inputValue(e))} />
      <Field
        id="password"
        label="Password"
        type="password"
        {...(newPassword ? { autoComplete: 'new-password', minLength: 10, hint: 'At least 10 characters.' } : { autoComplete: 'current-password' })}
        required
        value={password}
        onInput={(e) => onPassword(inputValue(e))}
      />
    </>
  );
}
