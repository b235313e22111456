/**
 * A short human summary of a browser's `User-Agent` for the sessions page ("Firefox on Linux"). Only a hint: the
 * page shows the raw string beside it, and nothing decides anything by it.
 *
 * @module
 */

/** Browsers by a token of their `User-Agent`, most specific first (Edge and Opera also say "Chrome", Chrome also says "Safari"). */
const BROWSERS: readonly (readonly [RegExp, string])[] = [
  [/\bEdg(?:e|A|iOS)?\//, 'Edge'],
  [/\bOPR\/|\bOpera\b/, 'Opera'],
  [/\bSamsungBrowser\//, 'Samsung Internet'],
  [/\bFirefox\/|\bFxiOS\//, 'Firefox'],
  [/\b(?:Headless)?Chrome\/|\bCriOS\/|\bChromium\//, 'Chrome'],
  [/\bVersion\/[\d.]+.*\bSafari\//, 'Safari'],
];

/** Operating systems, most specific first (an iPad says "like Mac OS X", Android says "Linux"). */
const SYSTEMS: readonly (readonly [RegExp, string])[] = [
  [/\bWindows\b/, 'Windows'],
  [/\biPhone\b|\biPad\b|\biPod\b/, 'iOS'],
  [/\bAndroid\b/, 'Android'],
  [/\bCrOS\b/, 'ChromeOS'],
  [/\bMac OS X\b|\bMacintosh\b/, 'macOS'],
  [/\bLinux\b/, 'Linux'],
];

/**
 * Summarizes a `User-Agent` as "‹browser› on ‹system›", or the first product name of one that is not a known
 * browser (`curl`), or "Unknown browser".
 *
 * @param userAgent - The header as the session kept it (`''` when none was sent).
 * @returns A few words.
 *
 * @example
 * ```ts
 * summarizeUserAgent('Mozilla/5.0 (X11; Linux x86_64; rv:128.0) Gecko/20100101 Firefox/128.0'); // 'Firefox on Linux'
 * summarizeUserAgent('curl/8.5.0'); // 'curl'
 * ```
 */
export function summarizeUserAgent(userAgent: string): string {
  const browser = BROWSERS.find(([pattern]) => pattern.test(userAgent))?.[1];
  const system = SYSTEMS.find(([pattern]) => pattern.test(userAgent))?.[1];
  if (browser === undefined) {
    const product = /^([A-Za-z][A-Za-z0-9._-]{0,39})\//.exec(userAgent)?.[1];
    return product === undefined || product === 'Mozilla' ? (system === undefined ? 'Unknown browser' : `Unknown browser on ${system}`) : product;
  }
  return system === undefined ? browser : `${browser} on ${system}`;
}
