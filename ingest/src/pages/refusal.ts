import { ApiError } from '../http/errors.js';

/**
 * A form the service refused (bad input, a conflict), in the words a person reads beside the field:
 * the page re-renders the form with what was typed kept and this message (ingest/README.md#how-to-add-a-dashboard-or-portal-page).
 */
export interface Refusal {
  /** The form field the refusal is about (the API's parameter name), when it names one. */
  field?: string;
  message: string;
  status: number;
}

/** What a form's fields are called on the page, by the API parameter they set. */
export type FieldLabels = Readonly<Record<string, string>>;

/**
 * The refusal of a 4xx the service threw, in plain words. A fault (5xx) or anything that is not an
 * ApiError is no refusal: it is thrown again and reaches the error page.
 *
 * The API's validation messages read "Invalid cookie_duration: Too small: expected number to be
 * >=1"; beside the field that becomes "Must be at least 1." The other messages of the services
 * ("A partner with this e-mail already exists …") are already written for people.
 */
export function refusalOf(err: unknown, labels: FieldLabels): Refusal {
  if (!(err instanceof ApiError) || err.status >= 500 || err.status === 401 || err.status === 403 || err.status === 404) throw err;
  const param = err.options.param;
  const field = param ? labelledField(param, labels) : undefined;
  const validation = /^Invalid ([^:]+): (.+)$/.exec(err.message);
  if (validation) {
    const words = plainValidation(validation[2]);
    return { field, message: field ? words : `${labels[validation[1]] ?? validation[1]}: ${lowerFirst(words)}`, status: err.status };
  }
  // Beside its field, "url must be an https:// URL" reads "Must be an https:// URL."
  const message = field && err.message.startsWith(`${field} `) ? err.message.slice(field.length + 1) : err.message;
  return { field, message: sentence(message), status: err.status };
}

/** The labelled field a parameter is part of: `url_params.0` is the field `url_params`. */
function labelledField(param: string, labels: FieldLabels): string | undefined {
  for (let p = param; p; p = p.slice(0, Math.max(0, p.lastIndexOf('.')))) if (Object.hasOwn(labels, p)) return p;
  return undefined;
}

/** Zod's wordings of a problem (zod 4, as `validate` passes them on), and the sentence each becomes. */
const PLAIN: readonly [RegExp, (m: RegExpExecArray) => string][] = [
  [/^this parameter is required$|^expected \w+, received undefined/, () => 'This is required.'],
  [/^Too small: expected (?:number|bigint) to be >=\s*(-?[\d.]+)/, (m) => `Must be at least ${m[1]}.`],
  [/^Too small: expected (?:number|bigint) to be >\s*(-?[\d.]+)/, (m) => `Must be more than ${m[1]}.`],
  [/^Too big: expected (?:number|bigint) to be <=\s*(-?[\d.]+)/, (m) => `Must be at most ${m[1]}.`],
  [/^Too big: expected (?:number|bigint) to be <\s*(-?[\d.]+)/, (m) => `Must be less than ${m[1]}.`],
  [/^Too small: expected string to have >=\s*1 characters?/, () => 'This is required.'],
  [/^Too small: expected string to have >=?\s*(\d+) characters?/, (m) => `Must be at least ${m[1]} characters.`],
  [/^Too big: expected string to have <=?\s*(\d+) characters?/, (m) => `Must be at most ${m[1]} characters.`],
  [/^Too small: expected array to have >=?\s*(\d+) items?/, (m) => `Choose at least ${m[1]}.`],
  [/^Too big: expected array to have <=?\s*(\d+) items?/, (m) => `Choose at most ${m[1]}.`],
  [/^expected int, received number|expected an integer/i, () => 'Must be a whole number.'],
  [/^expected number, received/, () => 'Must be a number.'],
  [/^Invalid email address/i, () => 'Must be an e-mail address.'],
  [/^Invalid URL/i, () => 'Must be a web address starting with https://.'],
  [/^(?:Invalid option: )?expected one of (.+)$/, (m) => `Must be one of ${m[1].replace(/"/g, '').split('|').join(', ')}.`],
];

/** Zod's wording of a problem, as a sentence about the field it sits beside. */
export function plainValidation(problem: string): string {
  const p = problem.trim();
  for (const [pattern, words] of PLAIN) {
    const m = pattern.exec(p);
    if (m) return words(m);
  }
  return sentence(p);
}

const lowerFirst = (s: string) => s.charAt(0).toLowerCase() + s.slice(1);
const sentence = (s: string) => {
  const t = s.trim();
  const first = t.charAt(0).toUpperCase() + t.slice(1);
  return /[.!?]$/.test(first) ? first : `${first}.`;
};

/**
 * Runs a form's change; if the service refuses it (a 4xx), `again` re-renders the form with the
 * refusal and what was typed, instead of leaving for an error page. Faults are thrown on, and so
 * are those of `again`, which is awaited (it may read what the page shows).
 */
export async function orRefused(
  change: () => Promise<void>,
  labels: FieldLabels,
  again: (refusal: Refusal) => void | Promise<void>,
): Promise<void> {
  let refusal: Refusal;
  try {
    await change();
    return;
  } catch (err) {
    refusal = refusalOf(err, labels);
  }
  await again(refusal);
}
