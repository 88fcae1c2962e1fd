import { randomUUID } from 'node:crypto';
import * as chromeLauncher from 'chrome-launcher';
import lighthouse from 'lighthouse';
import { chromiumArgs } from '../playwright.config.js';
import { alertBody } from './fixtures.js';
import type { BenchServer } from './server-client.js';
import { summarize } from './stats.js';

/** The pages Lighthouse scores: the emergency page, the live page, and two pages of the app. */
export const LIGHTHOUSE_PAGES = ['emergency', 'live', 'login', 'pricing'] as const;
export type LighthousePage = (typeof LIGHTHOUSE_PAGES)[number];

/** The pages meant to be found: SEO is judged on them (the personal pages are noindex on purpose). */
export const INDEXED_PAGES: readonly LighthousePage[] = ['login', 'pricing'];

const CATEGORIES = ['performance', 'accessibility', 'best-practices', 'seo'] as const;
type Category = (typeof CATEGORIES)[number];

export interface PageScores {
  page: LighthousePage;
  /** The path scored, with the personal parts named, not given. */
  path: string;
  runs: number;
  /** Each category's median score over the runs, 0 to 100. */
  scores: Record<Category, number>;
}

const executablePath = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';

/** The paths to score on `server`: a user with contacts, and a real alert of theirs for the live page. */
async function pagePaths(server: BenchServer): Promise<Record<LighthousePage, { url: string; shown: string }>> {
  const token = await server.seed({ contacts: 2, countdown: 10, language: 'pt' });
  const answer = await fetch(`${server.url}/api/emergency/public/${token}/alerts/`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'idempotency-key': randomUUID() },
    body: alertBody(),
  });
  if (answer.status !== 201) throw new Error(`the live page's alert was not sent: ${answer.status}`);
  const { public_id: publicId } = (await answer.json()) as { public_id: string };
  return {
    emergency: { url: `${server.url}/public/${token}/`, shown: '/public/{token}/' },
    live: { url: `${server.url}/a/${publicId}`, shown: '/a/{public_id}' },
    login: { url: `${server.url}/login`, shown: '/login' },
    pricing: { url: `${server.url}/pricing`, shown: '/pricing' },
  };
}

/**
 * Part 6: Lighthouse's mobile run (its defaults: a phone's screen, simulated slow 4G and a 4×
 * slower CPU) on each of `pages`, `runs` times, in the machine's Chromium in the new headless
 * mode (the old one cannot trace the emergency page: NO_NAVSTART). The server's map tiles come
 * from a loopback tile server, so nothing reaches the network.
 */
export async function measureLighthouse(
  server: BenchServer,
  pages: readonly LighthousePage[],
  runs: number,
): Promise<PageScores[]> {
  const paths = await pagePaths(server);
  const results: PageScores[] = [];
  for (const page of pages) {
    const seen: Record<Category, number[]> = { performance: [], accessibility: [], 'best-practices': [], seo: [] };
    for (let i = 0; i < runs; i += 1) {
      const lhr = await scoreOnce(paths[page].url, paths[page].shown);
      for (const category of CATEGORIES) seen[category].push(Math.round((lhr.categories[category]?.score ?? 0) * 100));
    }
    const scores = Object.fromEntries(CATEGORIES.map((c) => [c, summarize(seen[c]).median])) as Record<
      Category,
      number
    >;
    results.push({ page, path: paths[page].shown, runs, scores });
  }
  return results;
}

/** Lighthouse's trace sometimes misses the navigation's start (NO_NAVSTART: "run Lighthouse again"). */
const TRIES = 3;

/** One Lighthouse run of `url` in a Chromium of its own, as the CLI does; tried again when its trace failed. */
async function scoreOnce(url: string, shown: string) {
  let problem = '';
  for (let attempt = 0; attempt < TRIES; attempt += 1) {
    const chrome = await chromeLauncher.launch({
      chromePath: executablePath,
      chromeFlags: ['--headless=new', ...chromiumArgs],
    });
    try {
      const result = await lighthouse(url, {
        port: chrome.port,
        logLevel: 'error',
        output: 'json',
        onlyCategories: [...CATEGORIES],
      });
      if (!result) throw new Error(`Lighthouse gave no result for ${shown}`);
      const { lhr } = result;
      if (!lhr.runtimeError) return lhr;
      problem = `${lhr.runtimeError.code}: ${lhr.runtimeError.message}`;
      if (lhr.runtimeError.code !== 'NO_NAVSTART') break;
    } finally {
      chrome.kill();
    }
  }
  throw new Error(`Lighthouse on ${shown}: ${problem}`);
}
