import type { ZodType, z } from 'zod';
import { Field, SelectField } from './fields.js';
import { fromFields } from './forms.js';
import { type FieldLabels, type Refusal, refusalOf } from './refusal.js';
import type { Children } from './render.js';

/**
 * The filter forms of the lists (dashboard and portal alike), working without JavaScript
 * (ingest/docs/dashboard.md#list-filters): a GET form of fields, a picker that finds a
 * record by part of its name or e-mail instead of asking for its id, days as ISO text, and the
 * link to the whole filtered list as a CSV file.
 */

/** The filters a list page keeps in its address, by parameter name (an unset or empty one is left out). */
export type Kept = Readonly<Record<string, string | undefined>>;

/** `params` as a query string without its "?", empty values left out. */
export function queryOf(params: Kept): string {
  const query = new URLSearchParams();
  for (const [name, value] of Object.entries(params)) if (value) query.set(name, value);
  return query.toString();
}

/** `base` with `params` as its query. */
export const withQuery = (base: string, params: Kept): string => {
  const query = queryOf(params);
  return query ? `${base}?${query}` : base;
};

/** A record a picker offers or has chosen, as people know it. */
export interface PickedRecord {
  id: string;
  /** Its name, e.g. "Emma Stone" or a customer's e-mail. */
  label: string;
  /** What tells it apart from another of the same name (an e-mail address), if anything. */
  detail?: string | null;
}

/** Where a picker finds its records: the list's own scope (a program's partners, a partner's customers …). */
export interface PickerSource {
  /** The record a filter names by id; throws (a 404) when the id is not one of the scope's. */
  byId(id: string): Promise<PickedRecord>;
  /** The records whose name or e-mail holds `text`, at most `limit`, and whether more match. */
  search(text: string, limit: number): Promise<{ records: PickedRecord[]; more: boolean }>;
}

/** One picker of a filter form: the record's id is the filter (`partner_id`), found by the text typed in `field` (`partner`). */
export interface Picker {
  param: string;
  field: string;
  /** What it picks, capitalised: "Partner". */
  noun: string;
  source: PickerSource;
}

/** A picker as its field shows it. */
export type PickerName = Omit<Picker, 'source'>;

/** What a picker shows. */
export type PickerState =
  /** Nothing chosen: the search field. */
  | { kind: 'open' }
  /** Filtering by this record; `typed` when it was found by the text typed (the page then moves to its address with the id). */
  | { kind: 'chosen'; record: PickedRecord; typed: boolean }
  /** The text typed matches several records: they are offered as links. */
  | { kind: 'several'; text: string; choices: PickedRecord[]; more: boolean }
  /** The text typed matches nothing. */
  | { kind: 'none'; text: string };

/** How many matches a picker offers at most; past that it asks for more of the name. */
export const PICKER_CHOICES = 8;

/**
 * What a picker shows for the text typed in its field, else for the id its filter holds (checked
 * by the source: another scope's id is its 404). Text wins: it is a new search.
 */
export async function resolvePick(source: PickerSource, given: { text?: string; id?: string }): Promise<PickerState> {
  const text = given.text?.trim();
  if (text) {
    const { records, more } = await source.search(text, PICKER_CHOICES);
    if (records.length === 0) return { kind: 'none', text };
    if (records.length === 1 && !more) return { kind: 'chosen', record: records[0], typed: true };
    return { kind: 'several', text, choices: records, more };
  }
  if (given.id) return { kind: 'chosen', record: await source.byId(given.id), typed: false };
  return { kind: 'open' };
}

/** The picks of a form's pickers, by the picker's param, from the page's query. */
export async function resolvePicks(
  pickers: readonly Picker[],
  query: Readonly<Record<string, string | undefined>>,
): Promise<Map<string, PickerState>> {
  const picks = await Promise.all(pickers.map((p) => resolvePick(p.source, { text: query[p.field], id: query[p.param] })));
  return new Map(pickers.map((p, i) => [p.param, picks[i]]));
}

/**
 * The page's filters with each picker's parameter as its pick says: the chosen record's id, else
 * none (a text that is still being resolved leaves the list unfiltered by it, and is not kept).
 */
export function settledFilters(filters: Kept, pickers: readonly Picker[], picks: ReadonlyMap<string, PickerState>): Kept {
  const params: Record<string, string | undefined> = { ...filters };
  for (const picker of pickers) {
    const pick = picks.get(picker.param);
    params[picker.param] = pick?.kind === 'chosen' ? pick.record.id : undefined;
    delete params[picker.field];
  }
  return params;
}

/**
 * Where the page goes when a text typed found exactly one record: the settled filters, with that
 * record's id instead of the text (the address then says what the list shows, and its CSV link
 * and pager keep it), and the texts still unresolved; undefined when no text was resolved so.
 */
export function pickedAddress(
  base: string,
  settled: Kept,
  pickers: readonly Picker[],
  picks: ReadonlyMap<string, PickerState>,
): string | undefined {
  if (![...picks.values()].some((p) => p.kind === 'chosen' && p.typed)) return undefined;
  const params: Record<string, string | undefined> = { ...settled };
  for (const picker of pickers) {
    const pick = picks.get(picker.param);
    if (pick?.kind === 'several' || pick?.kind === 'none') params[picker.field] = pick.text;
  }
  return withQuery(base, params);
}

/** A list's filters read through their schema, or the refusal of what was typed, in plain words beside its field. */
export function readFilters<T extends ZodType>(
  schema: T,
  query: unknown,
  fields: readonly string[],
  labels: FieldLabels,
): { filters: z.output<T>; refusal: null } | { filters: null; refusal: Refusal } {
  try {
    return { filters: fromFields(schema, query, fields, 'query'), refusal: null };
  } catch (err) {
    return { filters: null, refusal: refusalOf(err, labels) };
  }
}

/** Whether every picker has settled on a record or on none asked: only then does the list show what its filters say. */
export const picksSettled = (picks: ReadonlyMap<string, PickerState>): boolean =>
  [...picks.values()].every((p) => p.kind === 'open' || p.kind === 'chosen');

/** A list page's filters as read from its address: what its form shows, what its links keep, and whether the list shows. */
export interface ListFilters<T> {
  /** The list's address, where its form and links go. */
  base: string;
  pickers: readonly Picker[];
  /** The list's own filters, read through their schema; null when what was typed is refused. */
  filters: T | null;
  refusal: Refusal | null;
  picks: ReadonlyMap<string, PickerState>;
  /** What the form's fields show: the text typed, by field name. */
  typed: Kept;
  /** The filters its links keep (pager, CSV, chips, choices): the pickers' chosen ids and the list's filters. */
  kept: Kept;
  /** Where to go instead: a text typed found exactly one record. */
  moved?: string;
  /** Whether the list can be shown: its filters were read and every picker has settled. */
  ready: boolean;
}

/**
 * Reads a list page's query: the pickers first (their ids already checked for format by the
 * caller; an id outside the picker's scope is its 404), then the list's own filters through
 * `schema`, whose refusal (a day that is no day) is shown beside its field instead of an error page.
 */
export async function readListFilters<T extends ZodType>(opts: {
  base: string;
  query: Readonly<Record<string, unknown>>;
  pickers: readonly Picker[];
  /** The pickers' ids and texts, by parameter. */
  picked: Readonly<Record<string, string | undefined>>;
  schema: T;
  fields: readonly string[];
  labels: FieldLabels;
  /** The filters of the list to keep in its links (no cursor). */
  keep: (filters: z.output<T>) => Kept;
}): Promise<ListFilters<z.output<T>>> {
  const picks = await resolvePicks(opts.pickers, opts.picked);
  const { filters, refusal } = readFilters(opts.schema, opts.query, opts.fields, opts.labels);
  const typed = Object.fromEntries(opts.fields.map((f) => [f, typeof opts.query[f] === 'string' ? (opts.query[f] as string) : undefined]));
  const kept = settledFilters(filters ? opts.keep(filters) : {}, opts.pickers, picks);
  const moved = filters ? pickedAddress(opts.base, kept, opts.pickers, picks) : undefined;
  return {
    base: opts.base,
    pickers: opts.pickers,
    filters,
    refusal,
    picks,
    typed,
    kept,
    moved,
    ready: filters !== null && picksSettled(picks),
  };
}

/**
 * A picker in a filter form: the record chosen as a removable chip (its id in a hidden field, so
 * the form's other filters keep it), else a search field; a text that matched nothing says so
 * beside the field. The choices of a text that matched several are <PickerChoices>, below the form.
 */
function PickerField({ picker, pick, base, kept }: { picker: PickerName; pick: PickerState; base: string; kept: Kept }) {
  const id = `pick-${picker.field}`;
  if (pick.kind === 'chosen') {
    const { record } = pick;
    const name = `${picker.noun}: ${record.label}`;
    return (
      <div class="field picker">
        <span class="chip chosen">
          {name}
          <a href={withQuery(base, { ...kept, [picker.param]: undefined })} aria-label={`Remove the filter ${name}`}>
            ×
          </a>
        </span>
        <input type="hidden" name={picker.param} value={record.id} />
      </div>
    );
  }
  const text = pick.kind === 'open' ? '' : pick.text;
  const message = pick.kind === 'none' ? `No ${picker.noun.toLowerCase()} of this program matches “${pick.text}”.` : null;
  const hint = `${id}-hint`;
  return (
    <div class="field picker">
      <label for={id}>{picker.noun}</label>
      <input
        id={id}
        name={picker.field}
        type="search"
        value={text}
        maxlength={254}
        placeholder="Name or e-mail"
        autocomplete="off"
        aria-invalid={message ? 'true' : undefined}
        aria-describedby={message ? `${hint} ${id}-error` : hint}
      />
      <span class="visually-hidden" id={hint}>
        Part of the name or e-mail address
      </span>
      {message ? (
        <span class="field-error" id={`${id}-error`}>
          {message}
        </span>
      ) : null}
    </div>
  );
}

/** The records a text matched, as links that set the filter (the page's other filters kept). */
function PickerChoices({ picker, pick, base, kept }: { picker: PickerName; pick: PickerState; base: string; kept: Kept }) {
  if (pick.kind !== 'several') return null;
  const heading = `pick-${picker.field}-choices`;
  return (
    <section class="choices" aria-labelledby={heading}>
      <h2
        id={heading}
      >{`Which ${picker.noun.toLowerCase()}? ${pick.more ? 'More than' : 'These'} ${pick.choices.length} match “${pick.text}”`}</h2>
      <ul>
        {pick.choices.map((record) => (
          <li>
            <a href={withQuery(base, { ...kept, [picker.param]: record.id })}>{record.label}</a>
            {record.detail ? <span class="sub">{record.detail}</span> : null}
          </li>
        ))}
      </ul>
      {pick.more ? <p class="muted">Not there? Type more of the name or e-mail.</p> : null}
    </section>
  );
}

/** The pickers of a list's filter form, each as its pick says. */
export function PickerFields({ view }: { view: ListFilters<unknown> }) {
  return (
    <>
      {view.pickers.map((p) => (
        <PickerField picker={p} pick={view.picks.get(p.param)!} base={view.base} kept={view.kept} />
      ))}
    </>
  );
}

/** Below the form: the records each picker's text matched, to choose from. */
export function PickerChoiceLists({ view }: { view: ListFilters<unknown> }) {
  return (
    <>
      {view.pickers.map((p) => (
        <PickerChoices picker={p} pick={view.picks.get(p.param)!} base={view.base} kept={view.kept} />
      ))}
    </>
  );
}

/** A list's status filter: any, or one of `statuses`. */
export function StatusField({ statuses, view }: { statuses: readonly string[]; view: ListFilters<unknown> }) {
  return (
    <SelectField
      name="status"
      label="Status"
      value={view.typed.status}
      options={[['', 'Any'], ...statuses.map((s) => [s, s.replace(/_/g, ' ')] as const)]}
      refusal={view.refusal}
    />
  );
}

/**
 * A UTC day as ISO text (YYYY-MM-DD), the format of every date on the pages: a text field, since
 * browsers show a date field in the reader's own format (mm/dd/yyyy).
 */
export function DayField({ name, label, value, refusal }: { name: string; label: string; value?: string; refusal?: Refusal | null }) {
  return (
    <Field
      name={name}
      id={`filter-${name}`}
      class="day"
      label={
        <>
          {label} <span class="format">(YYYY-MM-DD)</span>
        </>
      }
      value={value}
      pattern="\d{4}-\d{2}-\d{2}"
      placeholder="YYYY-MM-DD"
      inputmode="numeric"
      maxlength={10}
      autocomplete="off"
      refusal={refusal}
    />
  );
}

/** A list's filter form: GET to the list, its fields, "Filter", and "Clear" while a filter is set. */
export function FilterForm({
  action,
  label,
  filtered,
  children,
}: {
  action: string;
  label: string;
  filtered: boolean;
  children: Children;
}) {
  return (
    <search>
      <form class="filters" method="get" action={action} aria-label={label}>
        {children}
        <div class="filter-actions">
          <button type="submit">Filter</button>
          {filtered ? <a href={action}>Clear</a> : null}
        </div>
      </form>
    </search>
  );
}

/** The whole filtered list as a CSV file. */
export function CsvLink({ href }: { href: string }) {
  return (
    <a class="button" href={href} download>
      Download CSV
    </a>
  );
}
