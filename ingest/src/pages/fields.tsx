import type { Refusal } from './refusal.js';
import type { Children } from './render.js';

/**
 * Form fields that show their own refusal: the message sits beside the field it is about (linked by
 * `aria-describedby`, the field marked `aria-invalid`), and the form keeps what was typed. A
 * refusal about no field in particular is shown at the top of the form by <FormRefusal>.
 */

/** What was typed in a refused form, by field name, to put back in its fields. */
export type Typed = Readonly<Record<string, unknown>>;

/** A typed value as the text of a field ("" when none, or when it was not text). */
export const typedText = (typed: Typed | undefined, name: string, fallback: unknown = ''): string => {
  const value = typed && Object.hasOwn(typed, name) ? typed[name] : fallback;
  return typeof value === 'string' || typeof value === 'number' ? String(value) : '';
};

interface FieldBase {
  /** The API parameter the field sets: its `name`, and the key of its refusal. */
  name: string;
  label: Children;
  /** Unique on the page; defaults to the name. */
  id?: string;
  hint?: Children;
  refusal?: Refusal | null;
  required?: boolean;
  class?: string;
}

/** The parts every field shares: its label, hint and own message, and the aria attributes that tie them. */
function fieldParts({ name, id: given, hint, refusal }: FieldBase) {
  const id = given ?? name.replace(/[^A-Za-z0-9_-]/g, '-');
  const wrong = refusal?.field === name;
  const describedBy = [hint ? `${id}-hint` : null, wrong ? `${id}-error` : null].filter(Boolean).join(' ') || undefined;
  const aria = { id, 'aria-invalid': wrong ? ('true' as const) : undefined, 'aria-describedby': describedBy };
  const after = (
    <>
      {hint ? (
        <span class="hint" id={`${id}-hint`}>
          {hint}
        </span>
      ) : null}
      {wrong ? (
        <span class="field-error" id={`${id}-error`}>
          {refusal.message}
        </span>
      ) : null}
    </>
  );
  return { id, aria, after };
}

export function Field(
  props: FieldBase & {
    value?: string | number | null;
    type?: 'text' | 'email' | 'url' | 'number' | 'date' | 'password' | 'color' | 'search' | 'file';
    placeholder?: string;
    maxlength?: number;
    min?: number | string;
    max?: number | string;
    step?: number | string;
    inputmode?: 'decimal' | 'numeric' | 'email' | 'url';
    autocomplete?: string;
    pattern?: string;
    /** The file types a `file` field offers. */
    accept?: string;
  },
) {
  const { aria, id, after } = fieldParts(props);
  const { name, label, value, type = 'text', required, placeholder, maxlength, min, max, step, inputmode, autocomplete, pattern } = props;
  return (
    <div class={`field${props.class ? ` ${props.class}` : ''}`}>
      <label for={id}>{label}</label>
      <input
        {...aria}
        name={name}
        // Preact types `type` per element kind; these are all text-like inputs (a file field has no value to show).
        type={type as 'text'}
        value={type === 'file' ? undefined : (value ?? '')}
        required={required}
        placeholder={placeholder}
        maxlength={maxlength}
        min={min}
        max={max}
        step={step}
        inputmode={inputmode}
        autocomplete={autocomplete}
        pattern={pattern}
        accept={props.accept}
      />
      {after}
    </div>
  );
}

export function TextareaField(props: FieldBase & { value?: string | null; rows?: number; maxlength?: number; placeholder?: string }) {
  const { aria, id, after } = fieldParts(props);
  return (
    <div class={`field${props.class ? ` ${props.class}` : ''}`}>
      <label for={id}>{props.label}</label>
      <textarea {...aria} name={props.name} rows={props.rows ?? 3} maxlength={props.maxlength} placeholder={props.placeholder}>
        {props.value ?? ''}
      </textarea>
      {after}
    </div>
  );
}

export function SelectField(
  props: FieldBase & {
    value?: string | null;
    options: readonly (readonly [value: string, label: string])[];
    autosubmit?: boolean;
    autocomplete?: string;
  },
) {
  const { aria, id, after } = fieldParts(props);
  return (
    <div class={`field${props.class ? ` ${props.class}` : ''}`}>
      <label for={id}>{props.label}</label>
      <select
        {...aria}
        name={props.name}
        required={props.required}
        autocomplete={props.autocomplete}
        data-autosubmit={props.autosubmit ? '' : undefined}
      >
        {props.options.map(([value, label]) => (
          <option value={value} selected={value === (props.value ?? '')}>
            {label}
          </option>
        ))}
      </select>
      {after}
    </div>
  );
}

/** A refusal about no field of the form (or about one the form does not show), at its top. */
export function FormRefusal({ refusal, fields }: { refusal?: Refusal | null; fields?: readonly string[] }) {
  if (!refusal) return null;
  if (refusal.field && (!fields || fields.includes(refusal.field))) {
    return (
      <p class="error" role="alert">
        This form was not saved: see the message beside the field.
      </p>
    );
  }
  return (
    <p class="error" role="alert">
      {refusal.message}
    </p>
  );
}
