/**
 * The URL parameters ad networks append to a paid-ad click (Google Ads, Meta, Microsoft Ads,
 * TikTok, LinkedIn, X). svc.js sends the names of those present on the landing page (never their
 * values) with the click, so the server can flag clicks that came from paid ads, for programs that
 * forbid partners to bid on their brand. The server imports this same list: it is the one list.
 * Plain data, no DOM code: ingest imports it too.
 */
export const AD_CLICK_IDS = ['gclid', 'gbraid', 'wbraid', 'fbclid', 'msclkid', 'ttclid', 'li_fat_id', 'twclid'] as const;
