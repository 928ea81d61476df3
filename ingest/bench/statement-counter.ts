import type { KyselyPlugin } from 'kysely';

/** Counts the SQL statements a Kysely instance issues through it (`db.withPlugin(counter.plugin)`), for the payout figures and their test. */
export function statementCounter(): { plugin: KyselyPlugin; reset(): void; readonly count: number } {
  let count = 0;
  return {
    plugin: {
      transformQuery: (args) => {
        count++;
        return args.node;
      },
      transformResult: async (args) => args.result,
    },
    reset: () => {
      count = 0;
    },
    get count() {
      return count;
    },
  };
}
