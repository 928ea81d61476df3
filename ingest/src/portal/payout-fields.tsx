import countries from 'i18n-iso-countries';

// The words and choices of the portal's payout fields (join and settings).

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

/** Every country, by name, for a form's select. */
export function CountryOptions({ selected }: { selected?: string | null }) {
  return (
    <>
      <option value="">Choose…</option>
      {COUNTRIES.map(([code, name]) => (
        <option value={code} selected={code === selected}>
          {name}
        </option>
      ))}
    </>
  );
}
