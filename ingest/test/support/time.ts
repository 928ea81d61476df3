/** Time constants shared by the tests (no imports, so unit tests can use them too). */

/** An ISO 8601 UTC timestamp with milliseconds, as the API writes every date: `2024-01-01T00:00:00.000Z`. */
export const ISO_MS = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;

/** One day in milliseconds. */
export const DAY_MS = 86_400_000;
