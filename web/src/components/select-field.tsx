// A labelled <select> (the select counterpart of form-field.tsx); the id doubles as the stable
// hook for tests and automation.
export interface SelectOption<V extends string> {
  value: V;
  label: string;
}

export interface SelectFieldProps<V extends string> {
  id: string;
  label: string;
  value: V;
  /** In order; each value once. */
  options: readonly SelectOption<V>[];
  onChange(value: V): void;
  /** Label and select on one line (in a page head). */
  inline?: boolean;
}

/** <label> + <select>. */
export function SelectField<V extends string>({ id, label, value, options, onChange, inline = false }: SelectFieldProps<V>) {
  return (
    <div class={inline ? 'field inline' : 'field'}>
      <label for={id}>{label}</label>
      {/* The options are exactly `options`, so the selected value is one of V. */}
      <select id={id} value={value} onChange={(e) => onChange((e.target as HTMLSelectElement).value as V)}>
        {options.map((o) => (
          <option key={o.value} value={o.value}>
            {o.label}
          </option>
        ))}
      </select>
    </div>
  );
}
