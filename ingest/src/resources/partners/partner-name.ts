/** How a partner is named to people (pages, activity lines): their name, else their e-mail. */
export const partnerName = (p: { first_name: string; last_name: string; email: string }): string =>
  `${p.first_name} ${p.last_name}`.trim() || p.email;
