/**
 * Headless Chromium for browser tests: Debian's /usr/bin/chromium driven by playwright-core (playwright's own
 * browser download is not reachable here; `.ci/install-system-deps` installs the Debian package).
 *
 * Every request any page makes is recorded, so a test can assert that nothing left loopback.
 * There is no skip: a missing browser is a failure with a message saying how to install it.
 */
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { chromium, type BrowserContext, type Page, type Request } from 'playwright-core';

export const CHROMIUM_PATH = process.env.QUARRY_CHROMIUM ?? '/usr/bin/chromium';

/**
 * Flags for a quiet, local-only browser. The background/component/sync flags stop Chromium's own traffic
 * to Google services (which the page-level request log would not see); --disable-dev-shm-usage because
 * Debian's launcher fails to measure /dev/shm in containers and a small /dev/shm crashes renderers.
 */
export const CHROMIUM_ARGS = [
  '--no-sandbox',
  '--disable-gpu',
  '--disable-quic',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
  '--disable-dev-shm-usage',
  '--disable-extensions',
  '--disable-default-apps',
  '--no-default-browser-check',
  '--disable-features=Translate,OptimizationHints,MediaRouter,AutofillServerCommunication',
];

export interface RecordedRequest {
  url: string;
  method: string;
  resourceType: string;
  headers: Record<string, string>;
}

export interface TestBrowser {
  context: BrowserContext;
  /** Every request made by any page of this browser, in order. */
  requests: RecordedRequest[];
  /** Console errors and uncaught page errors, for diagnosing a blank page. */
  pageErrors: string[];
  newPage(): Promise<Page>;
  /** Requests whose host is not on loopback (127.0.0.0/8, localhost, [::1]); data:/blob:/about: are fine. */
  nonLoopbackRequests(): RecordedRequest[];
  close(): Promise<void>;
}

/** True for URLs that stay on this machine or never touch the network. */
export function isLocalUrl(raw: string): boolean {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    return false;
  }
  if (['data:', 'blob:', 'about:', 'chrome-error:'].includes(url.protocol)) return true;
  const host = url.hostname.replace(/^\[|\]$/g, '');
  return host === 'localhost' || host === '::1' || /^127\.\d{1,3}\.\d{1,3}\.\d{1,3}$/.test(host);
}

/** Fails (does not skip) when Chromium is absent: CI installs it, so its absence is a setup bug. */
export function assertChromiumInstalled(): void {
  if (!existsSync(CHROMIUM_PATH)) {
    throw new Error(
      `Chromium not found at ${CHROMIUM_PATH}. Browser tests need Debian's chromium package: ` +
        `run \`bash .ci/install-system-deps\` (as root), or set QUARRY_CHROMIUM to a Chromium binary.`,
    );
  }
}

export async function launchBrowser(opts: { viewport?: { width: number; height: number } } = {}): Promise<TestBrowser> {
  assertChromiumInstalled();
  const userDataDir = mkdtempSync(join(tmpdir(), 'quarry-chromium-'));
  let context: BrowserContext;
  try {
    context = await chromium.launchPersistentContext(userDataDir, {
      executablePath: CHROMIUM_PATH,
      headless: true,
      args: CHROMIUM_ARGS,
      viewport: opts.viewport ?? { width: 1400, height: 900 },
      timeout: 30_000,
    });
  } catch (err) {
    rmSync(userDataDir, { recursive: true, force: true });
    throw new Error(`Could not launch Chromium at ${CHROMIUM_PATH}: ${(err as Error).message}`);
  }

  const requests: RecordedRequest[] = [];
  const pageErrors: string[] = [];
  // Context-level, so requests from every page, popup and worker are seen, including ones that fail.
  context.on('request', (req: Request) => {
    requests.push({ url: req.url(), method: req.method(), resourceType: req.resourceType(), headers: req.headers() });
  });
  const watch = (page: Page) => {
    page.on('pageerror', (err) => pageErrors.push(`pageerror: ${err.message}`));
    page.on('console', (msg) => {
      if (msg.type() === 'error') pageErrors.push(`console: ${msg.text()}`);
    });
  };
  context.pages().forEach(watch);
  context.on('page', watch);

  let closed = false;
  return {
    context,
    requests,
    pageErrors,
    newPage: async () => {
      // A persistent context opens with one blank page; reuse it before opening more.
      const blank = context.pages().find((p) => p.url() === 'about:blank');
      return blank ?? context.newPage();
    },
    nonLoopbackRequests: () => requests.filter((r) => !isLocalUrl(r.url)),
    close: async () => {
      if (closed) return;
      closed = true;
      try {
        await context.close();
      } finally {
        rmSync(userDataDir, { recursive: true, force: true });
      }
    },
  };
}
