/**
 * Debian's Chromium for the browser tests, driven by playwright-core (never a browser download).
 */
import { execFileSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { chromium } from 'playwright-core';
import type { Browser } from 'playwright-core';

/** The Chromium binary (`which chromium`), or `null` when it is not installed. */
export function findChromium(): string | null {
  for (const candidate of ['/usr/bin/chromium', '/usr/bin/chromium-browser']) if (existsSync(candidate)) return candidate;
  try {
    const found = execFileSync('which', ['chromium'], { encoding: 'utf8' }).trim();
    return found === '' ? null : found;
  } catch {
    return null;
  }
}

/** Whether the tests run under CI, where a missing tool fails instead of skipping. */
export const IN_CI: boolean = process.env['CI'] !== undefined && process.env['CI'] !== '' && process.env['CI'] !== 'false';

/** Launches headless Chromium with the flags this machine needs. */
export function launchChromium(executablePath: string): Promise<Browser> {
  return chromium.launch({
    executablePath,
    args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-background-networking'],
  });
}
