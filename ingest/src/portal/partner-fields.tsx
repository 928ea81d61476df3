import countries from 'i18n-iso-countries';
import { Field, SelectField } from '../pages/fields.js';
import type { Refusal } from '../pages/refusal.js';

// What a partner fills in about themselves on the portal's pages (join and settings): their name and
// country, and how they are paid, with the words the pages use for it (a payout's page too).

/** How each payout method is called on the portal's pages. */
const PAYOUT_LABELS: Record<string, string> = {
  paypal: 'PayPal',
  wise: 'Wise',
  bank_transfer: 'Bank transfer',
  wire: 'Wire transfer',
  crypto: 'Crypto',
  none: 'Decide later',
};
export const payoutLabel = (method: string) => PAYOUT_LABELS[method] ?? method;

const COUNTRIES = Object.entries(countries.getNames('en', { select: 'official' })).sort((a, b) => a[1].localeCompare(b[1]));

/** Every country by name, after "Choose…", as a select's options (their values the API's ISO codes). */
export const COUNTRY_OPTIONS: readonly (readonly [code: string, name: string])[] = [['', 'Choose…'], ...COUNTRIES];

/** The partner's first and last name, as typed (or saved), with a refusal about either beside it. */
export function NameFields({ first, last, refusal }: { first?: string; last?: string; refusal: Refusal | null }) {
  const common = { required: true, maxlength: 100, refusal };
  return (
    <>
      <Field {...common} name="first_name" label="First name" autocomplete="given-name" value={first} />
      <Field {...common} name="last_name" label="Last name" autocomplete="family-name" value={last} />
    </>
  );
}

/** The partner's country, by name; its value the API's ISO code. */
export function CountryField({ value, required, refusal }: { value?: string; required?: boolean; refusal: Refusal | null }) {
  return (
    <SelectField
      name="country_code"
      label="Country"
      required={required}
      autocomplete="country"
      options={COUNTRY_OPTIONS}
      value={value?.toUpperCase()}
      refusal={refusal}
    />
  );
}

/** A field of a payout method's details, as the settings form draws it. */
export interface DetailField {
  name: string;
  label: string;
  hint?: string;
  email?: true;
  maxlength: number;
  autocomplete?: string;
  country?: true;
}

const BANK_FIELDS: DetailField[] = [
  { name: 'account_holder_name', label: 'Account holder', maxlength: 200, autocomplete: 'name' },
  { name: 'bank_name', label: 'Bank', maxlength: 200 },
  { name: 'iban', label: 'IBAN', hint: 'Capital letters and digits without spaces, e.g. GB82WEST12345698765432.', maxlength: 34 },
  { name: 'account_number', label: 'Account number', hint: 'Where the bank has no IBAN.', maxlength: 34 },
  { name: 'routing_number', label: 'Routing number', hint: 'US banks: the ABA routing number.', maxlength: 20 },
  { name: 'sort_code', label: 'Sort code', hint: 'UK banks: six digits, no dashes.', maxlength: 6 },
  { name: 'swift_bic', label: 'SWIFT / BIC', hint: '8 or 11 capital letters and digits.', maxlength: 11 },
  { name: 'country_code', label: "Bank's country", maxlength: 2, country: true },
  { name: 'address', label: 'Address of the account holder', maxlength: 500, autocomplete: 'street-address' },
];

/** The fields of each method's payout details, as the API takes them (PAYOUT_DETAILS in partners.schema.ts). */
export const DETAIL_FIELDS: Readonly<Record<string, readonly DetailField[]>> = {
  paypal: [{ name: 'email', label: 'PayPal e-mail address', email: true, maxlength: 254, autocomplete: 'email' }],
  wise: [{ name: 'email', label: 'Wise e-mail address', email: true, maxlength: 254, autocomplete: 'email' }],
  crypto: [
    { name: 'wallet_address', label: 'Wallet address', maxlength: 128 },
    { name: 'network', label: 'Network', hint: 'e.g. Ethereum, Solana, Bitcoin.', maxlength: 40 },
    { name: 'currency', label: 'Currency', hint: 'e.g. USDC, BTC.', maxlength: 12 },
  ],
  bank_transfer: BANK_FIELDS,
  wire: BANK_FIELDS,
  none: [],
};

/** What a detail of a method is called: its field's label ("IBAN"), else its key in words. */
export function detailLabel(method: string, name: string): string {
  return DETAIL_FIELDS[method]?.find((f) => f.name === name)?.label ?? name.replace(/_/g, ' ');
}
