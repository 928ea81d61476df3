import Bowser from 'bowser';

export type Device = 'desktop' | 'mobile' | 'tablet';

export interface UserAgentInfo {
  browser: string | null;
  device: Device | null;
  isBot: boolean;
}

const DEVICES = new Set<string>(['desktop', 'mobile', 'tablet']);

/** Browser name and device class from a User-Agent, by bowser; unknown parts are null. */
export function parseUserAgent(userAgent: string | undefined): UserAgentInfo {
  if (!userAgent?.trim()) return { browser: null, device: null, isBot: false };
  const { browser, platform } = Bowser.parse(userAgent.slice(0, 1000));
  return {
    // bowser answers '' (not undefined) for a User-Agent naming no browser it knows.
    browser: browser.name || null,
    device: platform.type && DEVICES.has(platform.type) ? (platform.type as Device) : null,
    isBot: platform.type === 'bot',
  };
}
